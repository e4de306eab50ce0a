/** Draft → legal review (human) → publish; a rejection loops back to the draft at most 3 times. */
export const REVIEW_FLOW = {
  name: 'Legal review',
  nodes: [
    { nodeId: 'draft', type: 'agent', config: { agentId: 'claims' } },
    { nodeId: 'legal', type: 'human' },
    { nodeId: 'publish', type: 'webhook' },
  ],
  edges: [
    { from: 'draft', to: 'legal' },
    { from: 'legal', to: 'publish', on: 'approve' },
    { from: 'legal', to: 'draft', on: 'reject', loop: { maxIterations: 3 } },
  ],
};
