import { accountPage } from './account/account.ts';
import { acceptTermsPost } from './account/accept-terms.ts';
import { invitePost } from './account/invite.ts';
import { withdrawInvitationPost } from './account/withdraw-invitation.ts';
import { operatorAccessPost } from './account/operator-access.ts';
import { caseTypePage } from './case-types/case-type.ts';
import { caseTypesPage } from './case-types/list.ts';
import { developersHomePage } from './home.ts';
import { createKeyPost } from './keys/create.ts';
import { keysPage } from './keys/list.ts';
import { revokeKeyPage, revokeKeyPost } from './keys/revoke.ts';
import { markNotificationsReadPost, notificationsPage } from './notifications.ts';
import { createEndpointPost } from './webhooks/create.ts';
import { deliveryPage } from './webhooks/delivery.ts';
import { disableEndpointPost, enableEndpointPost } from './webhooks/enable-disable.ts';
import { endpointPage } from './webhooks/endpoint.ts';
import { webhooksPage } from './webhooks/list.ts';
import { retryDeliveryPost } from './webhooks/retry.ts';
import { rotateSecretPage, rotateSecretPost } from './webhooks/rotate.ts';
import { sendTestEventPost } from './webhooks/test-event.ts';

/**
 * GET /dashboard/developers and every developer settings page under it: admins only (each page
 * declares `auth: 'admin'`; the dashboard's access hook refuses reviewers before a handler runs).
 * The case type upload, the one multipart form, is not here: see `case-types/upload.ts`.
 */
export const developerPages = [
  developersHomePage,
  keysPage,
  createKeyPost,
  revokeKeyPage,
  revokeKeyPost,
  webhooksPage,
  createEndpointPost,
  endpointPage,
  sendTestEventPost,
  rotateSecretPage,
  rotateSecretPost,
  disableEndpointPost,
  enableEndpointPost,
  deliveryPage,
  retryDeliveryPost,
  caseTypesPage,
  caseTypePage,
  notificationsPage,
  markNotificationsReadPost,
  accountPage,
  acceptTermsPost,
  invitePost,
  withdrawInvitationPost,
  operatorAccessPost,
];
