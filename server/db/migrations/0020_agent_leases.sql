-- A lease on a running agent execution (issue 31), renewed while it runs: past it, the instance running it is gone.
ALTER TABLE `agent_executions` ADD `lease_until` integer;
