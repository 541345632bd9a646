// Requests and answers of consign's JSON interface, as the `Shipping` methods take and
// return them. They mirror core/src/wire: keep them in step when a wire type changes.
// Decimals are accepted as JSON numbers or numeric strings (DECISIONS 1); answers give
// money as numbers (`totalAmount`) or two-decimal strings (`prepayBalance`) as the spec does.

/** A decimal: a JSON number or a numeric string such as "12.50". */
export type Decimal = number | string;

/** Options of every constructor. */
export interface ShippingOptions {
  /** A fixed RFC 3339 instant ("2026-11-21T09:00:00Z") instead of the JS `Date` clock. */
  now?: string;
}

/** What every failing method throws. */
export interface ConsignError extends Error {
  /** The HTTP status of the interface (400, 401, 402, 404, 405, 409, 500). */
  status: number;
  errorCategory:
    | "INVALID_REQUEST" | "LIMIT_EXCEEDED" | "UNAUTHORIZED" | "INSUFFICIENT_FUNDS" | "NOT_FOUND"
    | "METHOD_NOT_ALLOWED" | "CONFLICT" | "QUOTE_EXPIRED" | "SERVICE_NOT_AVAILABLE" | "INTERNAL";
  /** The fields at fault, as JSON paths (`shipments[3].sender.state`); empty otherwise. */
  details: FieldError[];
}

export interface FieldError { field: string; message: string; }

/** An address as sent (2.1); which fields are required depends on the operation. */
export interface Address {
  name?: string | null; company?: string | null; address1?: string | null; address2?: string | null;
  city?: string | null; state?: string | null; zip?: string | null; country?: string | null;
  phone?: string | null; email?: string | null;
}

export interface OkResponse { ok: boolean; }

// ---- customers ----------------------------------------------------------------------

export interface CreateCustomerRequest {
  profileCode: string;
  email: string;
  password: string;
  franchiseId?: string | null;
  mailingAddress: Address;
  billingAddress: Address;
  prepaySettings: { minimumBalance: Decimal; rechargeAmount: Decimal };
  salesRep?: string | null;
  utm?: { source?: string | null; medium?: string | null; campaign?: string | null; term?: string | null; content?: string | null } | null;
  monthlyVolume?: string | null;
}

export interface CustomerIdResponse { customerId: string; }

export interface ConnectCustomerRequest { username: string; password: string; }

export interface UpdatePaymentMethodRequest {
  billingAddress: Address;
  paymentMethod: { paymentMethodType: string; processorCardTokenId: string };
}

export interface PrepayResponse {
  balance: string;
  currency: string;
  minimumBalance: string;
  rechargeAmount: string;
  /** Newest first. */
  entries: LedgerEntry[];
}

export interface LedgerEntry {
  id: number; kind: string; amount: string; balanceAfter: string; createdAt: string; reference: string;
}

// ---- catalog, options, accounts ------------------------------------------------------

export interface ServicesResponse { services: ServiceEntry[]; }

export interface ServiceEntry {
  carrierCode: string;
  carrierLabel: string;
  serviceCode: string;
  serviceLabel: string;
  family: string;
  inbound: boolean;
  supportedCountries: string[] | null;
  unsupportedCountries: string[] | null;
  signatureOptions: { signatureOptionCode: string; signatureOptionLabel: string }[];
  supportedDangerousGoodsCodes: string | null;
  supportedDangerousGoodCodes: string | null;
  packageTypes: PackageTypeEntry[];
}

export interface PackageTypeEntry {
  packageTypeCode: string;
  packageTypeLabel: string;
  multipieceSupported: boolean;
  weightUnit: string;
  maxWeightPerPiece: string;
  dimType: string;
  dimUnit: string | null;
  presetLength: string | null;
  presetWidth: string | null;
  presetHeight: string | null;
}

export interface RegionalShipmentTypesResponse { services: string[]; }

export interface IntegratedQuotingOptions { integratedQuotingOptions: IntegratedQuotingOption[]; }

export interface IntegratedQuotingOption { name: string; carrierCode: string; serviceCode: string; packageTypeCode: string; }

export interface ProviderAccountsResponse { providerAccounts: ProviderAccount[]; }

export interface ProviderAccount { id: string; providerCode: string; accountFields: Record<string, string>; }

export interface PutProviderAccountRequest { accountFields: Record<string, string>; }

export interface CreateIntegrationRequest { name: string; }

export interface CreateIntegrationResponse { integrationId: string; }

// ---- quoting -------------------------------------------------------------------------

export interface BatchQuoteRequest { shipments: QuoteShipment[]; }

export interface QuoteShipment {
  carrierCode?: string | null;
  serviceCode?: string | null;
  packageTypeCode?: string | null;
  /** YYYY-MM-DD */
  shipmentDate: string;
  shipmentReference: string;
  contentDescription?: string | null;
  sender: Address;
  receiver: Address;
  residential?: boolean | null;
  signatureOptionCode?: string | null;
  saturdayDelivery?: boolean | null;
  postalExpressAmDelivery?: boolean | null;
  dangerousGoodsCode?: string | null;
  weightUnit: string;
  dimUnit?: string | null;
  currency: string;
  pieces: Piece[];
  billing?: Billing | null;
  providerAccountId?: string | null;
  commercialInvoice?: CommercialInvoice | null;
}

export interface Piece {
  weight: Decimal;
  length?: Decimal | null;
  width?: Decimal | null;
  height?: Decimal | null;
  insuranceAmount?: Decimal | null;
  declaredValue?: Decimal | null;
  lineItems?: { sku: string; productName: string; quantity: number | string }[] | null;
}

export interface Billing {
  party?: string | null;
  account?: string | null;
  country?: string | null;
  zip?: string | null;
  dutiableParty?: { dutyPaymentType?: string | null; dutyPaymentAccountNumber?: string | null } | null;
}

export interface CommercialInvoice {
  sendElectronically?: boolean | null;
  ftrNumber?: string | null;
  itnNumber?: string | null;
  aesNumber?: string | null;
  termsOfTrade?: string | null;
  receiverTaxId?: string | null;
  senderVatTaxId?: string | null;
  packageMarks?: string | null;
  items?: {
    description?: string | null; quantity?: number | string | null; unitValue?: Decimal | null; weight?: Decimal | null;
    htsNumber?: string | null; countryOfOrigin?: string | null;
  }[] | null;
  senderTaxIdNumberType?: string | null;
  dhlTaxIds?: { number?: string | null; type?: string | null; issuerCountry?: string | null }[] | null;
}

export interface Quote {
  quoteId: number;
  carrierCode: string;
  serviceCode: string;
  serviceDescription: string;
  packageTypeCode: string;
  currency: string;
  totalAmount: number;
  baseAmount: number;
  zone: string;
  quotedWeight: string;
  quotedWeightType: string;
  surcharges: { description: string; amount: number }[];
}

export interface QuoteError {
  carrierCode: string; serviceCode: string; serviceDescription: string; packageTypeCode: string;
  error: string; errorCategory: string;
}

export interface BatchQuoteResponse { results: ShipmentQuotes[]; }

export interface ShipmentQuotes {
  shipmentIndex: number;
  status: "success" | "error";
  quotes?: Quote[];
  quoteErrors?: QuoteError[];
  error?: string;
  errorCategory?: string;
  details?: FieldError[];
}

export interface QuotesResponse { quotes: Quote[]; quoteErrors: QuoteError[]; }

// ---- booking -------------------------------------------------------------------------

export interface BookShipmentRequest {
  carrierCode: string;
  serviceCode: string;
  packageTypeCode: string;
  shipmentDate: string;
  shipmentReference?: string;
  shipmentReference2?: string;
  contentDescription?: string;
  contentType?: string;
  orderNumber?: string;
  sender: Address;
  receiver: Address;
  returnTo?: Address;
  residential?: boolean;
  signatureOptionCode?: string | null;
  dangerousGoodsCode?: string | null;
  postalExpressAmDelivery?: boolean;
  saturdayDelivery?: boolean;
  weightUnit: string;
  dimUnit?: string | null;
  currency: string;
  customsCurrency?: string | null;
  /** PDF, ZPL or EPL2 */
  labelImageFormat?: string | null;
  pieces: {
    weight: Decimal; length?: Decimal | null; width?: Decimal | null; height?: Decimal | null;
    insuranceAmount?: Decimal | null; declaredValue?: Decimal | null;
  }[];
  approvePrepayRecharge?: boolean;
  scanBasedReturnLabel?: boolean;
  commercialInvoice?: CommercialInvoice;
  billing?: Billing;
  providerAccountId?: string | null;
  postalEndorsement?: string | null;
  quoteId?: number | string;
  idempotencyKey?: string | null;
  fulfillment?: Fulfillment;
}

export interface Fulfillment {
  orderId: string;
  integrationId: string;
  items: { productId?: string; sku?: string; lineId?: string; quantity: number | string }[];
}

export interface BookShipmentResponse {
  bookNumber: string;
  trackingNumber: string;
  prepayBalance: string;
  zone: string;
  pieces?: { trackingNumber: string; shippingCost: string }[];
  totalShippingCost: number;
  currency: string;
  trackingNumbers: string[];
}

export interface ViewAddress {
  name: string; company: string; address1: string; address2: string; city: string; state: string;
  zip: string | null; country: string; phone: string; email: string;
}

export interface ShipmentView {
  bookNumber: string;
  trackingNumber: string;
  trackingNumbers: string[];
  voided: boolean;
  carrierCode: string;
  serviceCode: string;
  packageTypeCode: string;
  shipmentDate: string;
  shipperReference: string;
  shipmentReference: string;
  shipperReference2: string;
  contentDescription: string;
  sender: ViewAddress;
  receiver: ViewAddress;
  residential: boolean;
  signatureOptionCode: string | null;
  weightUnit: string;
  dimUnit: string | null;
  currency: string;
  customsCurrency: string | null;
  pieces: {
    weight: string; length: string | null; width: string | null; height: string | null;
    insuranceAmount: number | null; declaredValue: number | null;
  }[];
  fulfillment: Fulfillment | null;
  totalShippingCost: number;
  orderNumber: string;
}

export interface ShipmentsResponse { shipments: ShipmentView[]; }

export interface VoidRequest { voided: boolean; }

export interface VoidResponse { bookNumber: string; voided: boolean; prepayBalance: string; }

export interface LabelResponse { labelImageFormat: string; base64Images: string[]; }

// ---- data ----------------------------------------------------------------------------

export type RateCsvKind = "carriers" | "exchange-rates" | "zones" | "rates" | "surcharges";

// ---- batches (DECISIONS 9) ----------------------------------------------------------------
export interface CreateBatchRequest { name?: string | null; }
export interface CreateBatchResponse { batchId: string; }
export interface AddQuotesRequest { quoteIds: Array<number | string>; }
export interface BatchQuote extends Quote { bookNumber: string | null; }
export interface Batch { batchId: string; name: string; status: "open" | "booked"; createdAt: string; quotes: BatchQuote[]; }
export interface BatchSummary { batchId: string; name: string; status: "open" | "booked"; createdAt: string; quoteCount: number; }
export interface BatchesResponse { batches: BatchSummary[]; }
export interface BatchBookRequest { batchId: string; labelImageFormat?: "PDF" | "ZPL" | "EPL2" | null; approvePrepayRecharge?: boolean | null; }
export interface BatchBookResult {
  quoteId: number; status: "success" | "error";
  bookNumber?: string; trackingNumber?: string; zone?: string; totalShippingCost?: number;
  error?: string; errorCategory?: string; details?: FieldError[];
}
export interface BatchBookResponse { batchId: string; results: BatchBookResult[]; prepayBalance: string; }

// ---- after booking: search (4.3), tracking (4.6), pickups (4.7), manifests (4.10), orders (4.2)
export interface SearchShipmentsRequest { keyword: string; }
export type EventStatus = "Info Received" | "In Transit" | "Out for Delivery" | "Delivery Arragned" | "With Delivery Courier"
  | "Delivered to Broker" | "Failed Attempt" | "Delivered" | "Exception";
export interface TrackingEvent {
  trackingNumber: string; carrier: string; event: string; eventStatus: EventStatus;
  eventTime: string; serviceArea: string; serviceAreaCountry: string;
}
export interface RecordTrackingEventsRequest { events: TrackingEvent[]; }
export interface RecordTrackingEventsResponse { recorded: number; duplicates: number; }
export interface FlatAddress {
  name: string; company: string; address1: string; address2: string; city: string; state: string; zip: string; country: string;
}
export interface SchedulePickupRequest extends FlatAddress {
  carrierCode: string; pickupDate: string; readyTime: string; closeTime: string; bookNumbers: string[]; phone: string;
  residential?: boolean | null; specialInstructions?: string | null; packageLocation?: string | null;
}
export interface PickupIdResponse { pickupId: string; }
export interface Pickup {
  pickupId: string; carrierCode: string; pickupDate: string; readyTime: string; closeTime: string; bookNumbers: string[];
  address: FlatAddress & { zip: string | null; phone: string; email: string }; residential: boolean;
  specialInstructions: string | null; packageLocation: string | null; cancelled: boolean;
}
export interface CreateManifestRequest extends FlatAddress { carrierCode: string; bookNumbers: string[]; }
export interface ManifestResponse { manifestId: string; type: string; data: string; bookNumbers?: string[]; }
export interface OrderItem {
  productId?: string; sku?: string | null; title?: string; price?: Decimal; quantity?: number; weight?: Decimal | null;
  imgUrl?: string | null; htsNumber?: string | null; countryOfOrigin?: string | null; lineId?: string | null; pickLocation?: string | null;
}
export interface OrderPackage {
  weight?: string; length?: string | null; width?: string | null; height?: string | null;
  insuranceAmount?: Decimal | null; declaredValue?: Decimal | null;
}
export interface Order {
  orderId: string; orderDate: string; orderNumber: string | null; fulfillmentStatus: "pending" | "fulfilled" | "partial";
  shippingService: string | null; shipperReference?: string | null; shipperReference2?: string | null; contentDescription?: string;
  shippingTotal: Decimal | null; weightUnit: "lb" | "kg" | null; dimUnit: "in" | "cm" | null; dueByDate: string | null;
  orderGroup: string | null; sender: Address; returnTo?: Partial<Address>; receiver: Address;
  items: OrderItem[] | null; packages: OrderPackage[] | null;
}
