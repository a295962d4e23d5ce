import type { WebPage } from './page-route.ts';

/**
 * The icon every browser asks for at /favicon.ico (issue 27 §6: without it each page load logged a
 * 404). An SVG, which browsers accept whatever the address's extension: a dark square with a
 * white "D", readable at 16 px in a tab and in both light and dark browser themes.
 */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b0c0c"/><path d="M10 7h6.5C22.3 7 25 10.6 25 16s-2.7 9-8.5 9H10V7zm4 3.6v10.8h2.3c3.3 0 4.6-2 4.6-5.4s-1.3-5.4-4.6-5.4H14z" fill="#fff"/></svg>`;

export const faviconPage: WebPage<unknown, 'public'> = {
  method: 'GET',
  url: '/favicon.ico',
  auth: 'public',
  handler: ({ reply }) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(ICON),
};
