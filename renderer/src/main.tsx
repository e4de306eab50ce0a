import { render } from 'preact';
import { App } from './App.tsx';
import { interceptLinks } from './lib/router.ts';
import './style.css';

const root = document.getElementById('app') as HTMLElement;
interceptLinks(document.body);
render(<App />, root);
