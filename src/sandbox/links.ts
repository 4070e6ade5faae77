// The customer web application's pages that ManualAction links point to (the spec's link
// shapes). pages.ts serves these paths; every link carries its agent_flow_id.

export type PaymentType = 'rent' | 'deposit';

/** The page parameter spells rent as `reservation`. */
export const pagePaymentType = (type: PaymentType) => (type === 'rent' ? 'reservation' : 'deposit');

export function paymentLinkUrl(appUrl: string, reservationUuid: string, type: PaymentType, flowId: string): string {
  return `${appUrl}/trips/${reservationUuid}?intent=pay&payment_type=${pagePaymentType(type)}&agent_flow_id=${flowId}`;
}

export function cardLinkUrl(appUrl: string, hasCard: boolean, flowId: string): string {
  return `${appUrl}/billing/${hasCard ? 'cards' : 'card-add'}?agent_flow_id=${flowId}`;
}

/** `checkout` is a validated `YYYY-MM-DDTHH:MM`, which needs no escaping in a query. */
export function extensionLinkUrl(appUrl: string, reservationUuid: string, checkout: string | null, flowId: string): string {
  const target = checkout ? `checkout=${checkout}&` : '';
  return `${appUrl}/trips/${reservationUuid}/modify?${target}agent_flow_id=${flowId}`;
}

export const settingsApiKeysUrl = (appUrl: string) => `${appUrl}/settings/api-keys`;
