// The pages behind a login link (`<public URL>/auth/email-link?token=…`). Opening the link (GET) only shows a page
// with a button; the button's POST uses the link up, verifies the owner's e-mail and continues to continueUrl.
// Mail scanners and link previews fetch every link of a message with GET before its reader clicks: a link that
// a GET consumed would be spent before anyone opened it.
import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { consumeLoginLink, LOGIN_LINK_PATH, openLoginLink } from '../services/login-links.ts';
import { readBody, refuseRestOfBody } from './body.ts';
import { escapeHtml } from './html.ts';

/** A form of one token: a few hundred bytes at most. */
const FORM_LIMIT = 4096;

// No script, no outside resource, never framed (the button must not be clickable through another page), kept
// out of caches, and the link's token not sent on as a Referer.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
};

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font:inherit;padding:.5rem 1.25rem;cursor:pointer}';

function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
  return new Response(html, { status, headers: PAGE_HEADERS });
}

const unusable = () => page(400, 'Sign-in link', '<h1>This sign-in link is invalid, used or expired.</h1><p>Ask for a new one.</p>');

export function registerLoginLinkRoutes(h3: H3, app: AppContext) {
  h3.get(LOGIN_LINK_PATH, (event) => {
    const token = event.url.searchParams.get('token') ?? '';
    const link = token ? openLoginLink(app, token) : null;
    if (!link) return unusable();
    // the form posts to this same path (relative, so that it works behind a PUBLIC_URL path as well)
    return page(
      200,
      'Sign in to Hearth',
      `<h1>Sign in to Hearth</h1><p>as <strong>${escapeHtml(link.email)}</strong></p>` +
        `<form method="post" action="email-link"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">Continue</button></form>`,
    );
  });

  h3.post(LOGIN_LINK_PATH, async (event) => {
    let text: string;
    try {
      text = await readBody(event, FORM_LIMIT);
    } catch {
      refuseRestOfBody(event, FORM_LIMIT);
      return unusable();
    }
    const token = new URLSearchParams(text).get('token') ?? '';
    const continueUrl = token ? consumeLoginLink(app, token) : null;
    if (!continueUrl) return unusable();
    // 303: the browser follows with a GET, whatever the form's method
    return new Response(null, { status: 303, headers: { location: continueUrl, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } });
  });
}
