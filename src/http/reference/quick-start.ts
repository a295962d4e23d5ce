/** The reference's opening: the integrator's first hour, in the order they need it (Markdown, rendered by Redoc). */
export function quickStart(baseUrl: string): string {
  return `
## Quick start

**1. A test key.** On a fresh install \`npm start\` prints one; \`npm run dossier -- demo\` prints it again, and
**Dashboard → Developers → API keys** creates more. Test keys start \`sk_test_\`.

\`\`\`sh
export DOSSIER_API_KEY=sk_test_…
\`\`\`

**2. Webhooks on your own machine.** Forward the workspace's test deliveries to a local receiver. \`listen\`
prints the signing secret to verify with (the same on every run) and a line per delivery:

\`\`\`sh
npm run dossier -- listen --forward-to http://localhost:4567/hook
\`\`\`

**3. A session.** Create a hosted intake session and send the applicant to its \`signed_url\`:

\`\`\`sh
curl -X POST "${baseUrl}/api/v1/sessions" \\
  -H "Authorization: Bearer $DOSSIER_API_KEY" \\
  -H "Idempotency-Key: $(uuidgen)" \\
  -H "Content-Type: application/json" \\
  -d '{"case_type_id": "income_verification", "external_case_id": "loan-4711"}'
\`\`\`

In test mode an upload step offers **Use a sample document**, so no real pay stub is needed.

**4. The handoff.** When the case completes (an operator approves it in the dashboard), your receiver gets a signed
\`v1.case.completed\` delivery. Verify it (\`verifyWebhook\` in \`@dossier/client\`, or Stripe's or Standard Webhooks'
verifiers), read the case, then acknowledge:

\`\`\`sh
curl -X POST "${baseUrl}/api/v1/webhooks/deliveries/$DELIVERY_ID/ack" \\
  -H "Authorization: Bearer $DOSSIER_API_KEY" \\
  -H "Content-Type: application/json" -d '{"acknowledgement_id": "loan-4711-received"}'
\`\`\`

Every operation below has a curl and a TypeScript sample; **Webhook events** lists every event with its \`data\`.
[Back to the dashboard](/dashboard)
`;
}
