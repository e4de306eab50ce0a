// The pages behind a login link (`<public URL>/auth/email-link?token=…`). Opening the link (GET) only shows a page
// with a button; the button's POST uses the link up, verifies the owner's e-mail and continues to continueUrl.
// Mail scanners and link previews fetch every link of a message with GET before its reader clicks: a link that
// a GET consumed would be spent before anyone opened it.
import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { consumeLoginLink, LOGIN_LINK_PATH, openLoginLink } from '../services/login-links.ts';
import { readBody, refuseRestOfBody } from './body.ts';
import { escapeHtml, page } from './html.ts';

/** A form of one token: a few hundred bytes at most. */
const FORM_LIMIT = 4096;

const unusable = () => page(400, 'Sign-in link', '<h1>This sign-in link is invalid, used or expired.</h1><p>Ask for a new one.</p>');

export function registerLoginLinkRoutes(h3: H3, app: AppContext) {
  h3.get(LOGIN_LINK_PATH, async (event) => {
    const token = event.url.searchParams.get('token') ?? '';
    const link = token ? await openLoginLink(app, token) : null;
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
    const continueUrl = token ? await consumeLoginLink(app, token) : null;
    if (!continueUrl) return unusable();
    // 303: the browser follows with a GET, whatever the form's method
    return new Response(null, { status: 303, headers: { location: continueUrl, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } });
  });
}
