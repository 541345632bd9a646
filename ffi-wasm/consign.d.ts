// Requests and answers of consign's JSON interface, as the `Shipping` methods take and
// return them. Below the marker line the declarations are generated from the wire types
// (core/src/wire), and a test (ffi-wasm/tests/typescript.rs) fails when they differ.
// Decimals are accepted as JSON numbers or numeric strings (DECISIONS 1); answers give
// money as numbers (`totalAmount`) or two-decimal strings (`prepayBalance`) as the spec does.

/** A decimal: a JSON number or a numeric string such as "12.50". */
export type Decimal = number | string;

/** Options of every constructor. */
export interface ShippingOptions {
  /** A fixed RFC 3339 instant ("2026-11-21T09:00:00Z") instead of the JS `Date` clock. */
  now?: string;
  /** A `BroadcastChannel` name each commit's events are posted to, for the package's
   * `onEvent` in other tabs and workers of the origin. */
  channel?: string;
}

/** What every failing method throws. */
export interface ConsignError extends Error {
  /** The HTTP status of the interface (400, 401, 402, 404, 405, 409, 429, 500, 503). */
  status: number;
  errorCategory:
    | "INVALID_REQUEST" | "LIMIT_EXCEEDED" | "UNAUTHORIZED" | "INSUFFICIENT_FUNDS" | "NOT_FOUND"
    | "METHOD_NOT_ALLOWED" | "CONFLICT" | "QUOTE_EXPIRED" | "GONE" | "SERVICE_NOT_AVAILABLE" | "DELIVERY_DATE_NOT_MET"
    | "TOO_MANY_ATTEMPTS" | "TOO_MANY_REQUESTS" | "BUSY" | "INTERNAL";
  /** The fields at fault, as JSON paths (`shipments[3].sender.state`); empty otherwise. */
  details: FieldError[];
}

/** One field at fault: its JSON path (`shipments[3].sender.state`) and what is wrong. */
export interface FieldError { field: string; message: string; }

/** The kinds of rate table CSV (`importRates`, `exportRates`). */
export type RateCsvKind = "carriers" | "exchange-rates" | "zones" | "rates" | "surcharges" | "transit" | "calendars";

/** The nine tracking event statuses of the interface (2.9), spelled as it spells them. */
export type EventStatus = "Info Received" | "In Transit" | "Out for Delivery" | "Delivery Arragned" | "With Delivery Courier"
  | "Delivered to Broker" | "Failed Attempt" | "Delivered" | "Exception";

// ---- Generated from core/src/wire (ffi-wasm/tests/typescript.rs); do not edit below. ----

/**
 * An address as sent (2.1); which fields are required depends on the endpoint.
 */
export type Address = {
  name?: string | null,
  company?: string | null,
  address1?: string | null,
  address2?: string | null,
  city?: string | null,
  state?: string | null,
  /**
   * `None` when the key is absent, `Some(None)` for null: the booking payload
   * requires the key even where its value may be null.
   */
  zip?: string | null,
  country?: string | null,
  phone?: string | null,
  email?: string | null,
};

/**
 * `{"ok": true}`, the answer of operations that return nothing else.
 */
export type OkResponse = {
  /**
   * Always true.
   */
  ok: boolean,
};

/**
 * Body of `POST /restapi/v1/customers` (4.9).
 */
export type CreateCustomerRequest = {
  /**
   * The profile used as a template, usually `Default`.
   */
  profileCode: string,
  /**
   * E-mail, also the login.
   */
  email: string,
  /**
   * Password (stored only as an argon2id hash).
   */
  password: string,
  /**
   * Optional three-character franchise code.
   */
  franchiseId?: string | null,
  /**
   * Mailing address; every field required.
   */
  mailingAddress: Address,
  /**
   * Billing address; every field required.
   */
  billingAddress: Address,
  /**
   * Minimum balance and recharge amount.
   */
  prepaySettings: PrepaySettings,
  /**
   * Optional sales rep name.
   */
  salesRep?: string | null,
  /**
   * Optional campaign attribution (an empty string counts as absent).
   */
  utm?: Utm | null,
  /**
   * Expected monthly volume, free text.
   */
  monthlyVolume?: string | null,
};

/**
 * `prepaySettings` of a new customer.
 */
export type PrepaySettings = {
  /**
   * Preferred minimum balance.
   */
  minimumBalance: Decimal,
  /**
   * Amount billed at creation and whenever the balance falls below the minimum.
   */
  rechargeAmount: Decimal,
};

/**
 * Campaign attribution of a new customer; every field optional.
 */
export type Utm = {
  source?: string | null,
  medium?: string | null,
  campaign?: string | null,
  term?: string | null,
  content?: string | null,
};

/**
 * Answer of create customer and connect customer.
 */
export type CustomerIdResponse = {
  /**
   * The customer's id.
   */
  customerId: string,
};

/**
 * Body of `POST /restapi/v1/connect-customer`.
 */
export type ConnectCustomerRequest = {
  /**
   * The customer's e-mail.
   */
  username: string,
  /**
   * The customer's password.
   */
  password: string,
};

/**
 * Body of `POST .../paymentMethod` (4.12).
 */
export type UpdatePaymentMethodRequest = {
  /**
   * Billing address of the card.
   */
  billingAddress: Address,
  /**
   * The token from the secure payment form.
   */
  paymentMethod: PaymentMethod,
};

/**
 * The payment-method token; card data never reaches the service.
 */
export type PaymentMethod = {
  /**
   * Must be `processorCardToken` (alias `<processor>CardToken`).
   */
  paymentMethodType: string,
  /**
   * The token id (alias `<processor>CardTokenId`).
   */
  processorCardTokenId: string,
};

/**
 * Answer of `GET .../prepay`: the balance, settings and ledger, newest first.
 */
export type PrepayResponse = {
  /**
   * Current balance, 2 decimals.
   */
  balance: string,
  /**
   * Account currency (USD).
   */
  currency: string,
  /**
   * Minimum balance setting, 2 decimals.
   */
  minimumBalance: string,
  /**
   * Recharge amount setting, 2 decimals.
   */
  rechargeAmount: string,
  /**
   * Ledger entries, newest first.
   */
  entries: Array<LedgerEntry>,
};

/**
 * One ledger entry.
 */
export type LedgerEntry = {
  /**
   * Entry id.
   */
  id: number,
  /**
   * `recharge`, `charge` or `refund`.
   */
  kind: string,
  /**
   * Signed amount, 2 decimals (charges negative).
   */
  amount: string,
  /**
   * Balance after this entry, 2 decimals.
   */
  balanceAfter: string,
  /**
   * When the entry was made (RFC 3339, UTC).
   */
  createdAt: string,
  /**
   * What the entry is for (a book number, `account opened`, ...).
   */
  reference: string,
};

/**
 * Answer of `GET .../services` (4.4).
 */
export type ServicesResponse = {
  /**
   * The services the customer's profile offers.
   */
  services: Array<ServiceEntry>,
};

/**
 * One service of list services.
 */
export type ServiceEntry = {
  /**
   * Carrier code.
   */
  carrierCode: string,
  /**
   * Carrier name.
   */
  carrierLabel: string,
  /**
   * Service code.
   */
  serviceCode: string,
  /**
   * Service name.
   */
  serviceLabel: string,
  /**
   * `ground` or `express` (an extension, DECISIONS 4).
   */
  family: string,
  /**
   * True for inbound services (country lists then name sender countries).
   */
  inbound: boolean,
  /**
   * Complete list of supported countries, or null.
   */
  supportedCountries: Array<string> | null,
  /**
   * Countries not supported (all others are), or null.
   */
  unsupportedCountries: Array<string> | null,
  /**
   * Signature options of the service.
   */
  signatureOptions: Array<SignatureOptionEntry>,
  /**
   * Dangerous goods codes, comma separated, or null.
   */
  supportedDangerousGoodsCodes: string | null,
  /**
   * The same value under the spelling one table of the interface uses.
   */
  supportedDangerousGoodCodes: string | null,
  /**
   * Package types of the service.
   */
  packageTypes: Array<PackageTypeEntry>,
};

/**
 * One signature option.
 */
export type SignatureOptionEntry = {
  /**
   * Code to send as `signatureOptionCode`.
   */
  signatureOptionCode: string,
  /**
   * Name for people.
   */
  signatureOptionLabel: string,
};

/**
 * One package type of a service.
 */
export type PackageTypeEntry = {
  /**
   * Package type code.
   */
  packageTypeCode: string,
  /**
   * Name for people.
   */
  packageTypeLabel: string,
  /**
   * True if several pieces may be shipped together.
   */
  multipieceSupported: boolean,
  /**
   * `lb` or `kg`.
   */
  weightUnit: string,
  /**
   * Maximum weight per piece, decimal string.
   */
  maxWeightPerPiece: string,
  /**
   * `preset`, `envelope` or `custom`.
   */
  dimType: string,
  /**
   * `in` or `cm` for preset types, else null.
   */
  dimUnit: string | null,
  /**
   * Preset length, or null.
   */
  presetLength: string | null,
  /**
   * Preset width, or null.
   */
  presetWidth: string | null,
  /**
   * Preset height, or null.
   */
  presetHeight: string | null,
};

/**
 * Answer of regional shipment types (4.13).
 */
export type RegionalShipmentTypesResponse = {
  /**
   * Service codes that deliver to the postal code.
   */
  services: Array<string>,
};

/**
 * Body and answer of integrated quoting options (4.8).
 */
export type IntegratedQuotingOptions = {
  /**
   * The options, in the customer's order.
   */
  integratedQuotingOptions: Array<IntegratedQuotingOption>,
};

/**
 * A named combination of carrier, service and package type.
 */
export type IntegratedQuotingOption = {
  /**
   * The name the customer chose.
   */
  name: string,
  /**
   * Carrier code.
   */
  carrierCode: string,
  /**
   * Service code.
   */
  serviceCode: string,
  /**
   * Package type code.
   */
  packageTypeCode: string,
};

/**
 * Answer of list provider accounts (4.11).
 */
export type ProviderAccountsResponse = {
  /**
   * The customer's carrier accounts.
   */
  providerAccounts: Array<ProviderAccount>,
};

/**
 * A carrier account with its credential values masked.
 */
export type ProviderAccount = {
  /**
   * Account id.
   */
  id: string,
  /**
   * Carrier code.
   */
  providerCode: string,
  /**
   * Field names with masked values.
   */
  accountFields: { [key in string]: string },
};

/**
 * Body of `PUT .../provider-accounts/:providerCode`.
 */
export type PutProviderAccountRequest = {
  /**
   * The carrier's account fields, values in clear (stored, sealed when the service
   * has a key, never returned). A value of `********`, the mask that list shows,
   * keeps the stored one.
   */
  accountFields: { [key in string]: string },
};

/**
 * Body of `POST .../integrations`.
 */
export type CreateIntegrationRequest = {
  /**
   * Name of the integration.
   */
  name: string,
};

/**
 * Answer of create integration.
 */
export type CreateIntegrationResponse = {
  /**
   * The new integration's id.
   */
  integrationId: string,
};

/**
 * Answer of `GET .../partners`: the partner keys connected to the customer (an
 * extension; DECISIONS, "Logins").
 */
export type PartnersResponse = {
  /**
   * The partners, in the order of their key ids.
   */
  partners: Array<Partner>,
};

/**
 * A partner key connected to a customer: never the key itself.
 */
export type Partner = {
  /**
   * The key's id, e.g. `K0000001`.
   */
  keyId: string,
  /**
   * The name the key was given at creation, possibly empty.
   */
  name: string,
  /**
   * When the key created or connected the customer (RFC 3339, UTC); null for a link
   * older than the database's schema 9.
   */
  connectedAt: string | null,
  /**
   * When the key was revoked, or null: a revoked key acts for no one.
   */
  revokedAt: string | null,
};

/**
 * Body of `POST .../batch-quote`. Shipments stay raw so that one malformed shipment
 * fails alone (DECISIONS 2).
 */
export type BatchQuoteRequest = {
  /**
   * The shipments, at most 500.
   */
  shipments: Array<QuoteShipment>,
};

/**
 * One shipment to quote (4.1; addresses, pieces and billing as in the booking payload).
 */
export type QuoteShipment = {
  /**
   * Carrier to quote; empty or absent for all.
   */
  carrierCode?: string | null,
  /**
   * Service to quote; empty or absent for all.
   */
  serviceCode?: string | null,
  /**
   * Package type to quote; empty or absent for all that fit.
   */
  packageTypeCode?: string | null,
  /**
   * `YYYY-MM-DD`, today or later. Required in a batch quote; the single quote
   * quotes for today without it.
   */
  shipmentDate?: string | null,
  /**
   * Customer-provided reference. Required in a batch quote; optional in the single
   * quote.
   */
  shipmentReference?: string | null,
  /**
   * What the shipment holds.
   */
  contentDescription?: string | null,
  /**
   * Ship from.
   */
  sender: Address,
  /**
   * Ship to.
   */
  receiver: Address,
  /**
   * The receiver address is residential.
   */
  residential?: boolean | null,
  /**
   * Signature option code, null for none.
   */
  signatureOptionCode?: string | null,
  /**
   * Saturday delivery (as in the booking payload).
   */
  saturdayDelivery?: boolean | null,
  /**
   * 10:30 AM delivery of the postal carrier (as in the booking payload).
   */
  postalExpressAmDelivery?: boolean | null,
  /**
   * Dangerous goods code (as in the booking payload).
   */
  dangerousGoodsCode?: string | null,
  /**
   * `lb`, `oz`, `kg` or `g`.
   */
  weightUnit: string,
  /**
   * `in`, `cm`, or null for preset package types. The key is required.
   */
  dimUnit: string | null,
  /**
   * `USD`, `GBP`, `CAD` or `EUR`. Required in a batch quote; the single quote
   * quotes in USD without it.
   */
  currency?: string | null,
  /**
   * The packages.
   */
  pieces: Array<Piece>,
  /**
   * Who pays.
   */
  billing?: Billing | null,
  /**
   * A provider account of the customer.
   */
  providerAccountId?: string | null,
  /**
   * Commercial invoice for international shipments.
   */
  commercialInvoice?: CommercialInvoice | null,
  /**
   * Extension: `YYYY-MM-DD`, the latest arrival wanted. Services estimated to
   * arrive later are reported in `quoteErrors` as `DELIVERY_DATE_NOT_MET`.
   */
  deliverBy?: string,
};

/**
 * A package (2.2).
 */
export type Piece = {
  /**
   * Weight in the shipment's `weightUnit`.
   */
  weight: Decimal,
  /**
   * Length in `dimUnit`; null for preset package types.
   */
  length?: Decimal | null,
  /**
   * Width.
   */
  width?: Decimal | null,
  /**
   * Height.
   */
  height?: Decimal | null,
  /**
   * Value to insure; null for none.
   */
  insuranceAmount?: Decimal | null,
  /**
   * Declared value; null when domestic.
   */
  declaredValue?: Decimal | null,
  /**
   * Line items (batch quote), order and duplicates kept.
   */
  lineItems?: Array<LineItem> | null,
};

/**
 * A line item of a piece.
 */
export type LineItem = {
  /**
   * SKU; may be empty.
   */
  sku: string,
  /**
   * Product name.
   */
  productName: string,
  /**
   * Quantity.
   */
  quantity: number | string,
};

/**
 * Billing (2.3).
 */
export type Billing = {
  /**
   * `sender`, `receiver` or `third_party`.
   */
  party?: string | null,
  /**
   * Billing account number.
   */
  account?: string | null,
  /**
   * Billing country.
   */
  country?: string | null,
  /**
   * Billing zip.
   */
  zip?: string | null,
  /**
   * Who pays duties.
   */
  dutiableParty?: DutiableParty | null,
};

/**
 * Duty payment of a shipment.
 */
export type DutiableParty = {
  /**
   * `sender`, `receiver` or `third_party`.
   */
  dutyPaymentType?: string | null,
  /**
   * Account paying duties (required for receiver and third_party).
   */
  dutyPaymentAccountNumber?: string | null,
};

/**
 * Commercial invoice (4.5; the batch quote adds the tax fields).
 */
export type CommercialInvoice = {
  /**
   * Submit electronically.
   */
  sendElectronically?: boolean | null,
  /**
   * FTR exemption; null when another is present.
   */
  ftrNumber?: string | null,
  /**
   * ITN; null when another is present.
   */
  itnNumber?: string | null,
  /**
   * AES number; must be null.
   */
  aesNumber?: string | null,
  /**
   * Incoterm.
   */
  termsOfTrade?: string | null,
  /**
   * Receiver's tax id.
   */
  receiverTaxId?: string | null,
  /**
   * Sender's VAT/tax id.
   */
  senderVatTaxId?: string | null,
  /**
   * Package marks.
   */
  packageMarks?: string | null,
  /**
   * Invoice items.
   */
  items?: Array<InvoiceItem> | null,
  /**
   * Type of `senderVatTaxId`: `ein`, `dns` or `fgn` (default `ein`).
   */
  senderTaxIdNumberType?: string | null,
  /**
   * Tax ids for carrier C (at most two).
   */
  dhlTaxIds?: Array<TaxId> | null,
};

/**
 * An invoice item.
 */
export type InvoiceItem = {
  /**
   * Description.
   */
  description?: string | null,
  /**
   * Quantity.
   */
  quantity?: number | string | null,
  /**
   * Per-unit value.
   */
  unitValue?: Decimal | null,
  /**
   * Weight of the line, in the shipment's `weightUnit`.
   */
  weight?: Decimal | null,
  /**
   * Harmonized Tariff Schedule number.
   */
  htsNumber?: string | null,
  /**
   * Country of origin.
   */
  countryOfOrigin?: string | null,
};

/**
 * A carrier C tax id.
 */
export type TaxId = {
  /**
   * The number; non-empty.
   */
  number?: string | null,
  /**
   * `EOR`, `VAT`, `FTZ`, `CNP`, `EIN` or `FED`.
   */
  type?: string | null,
  /**
   * Issuer country.
   */
  issuerCountry?: string | null,
};

/**
 * A priced, bookable result (2.5).
 */
export type Quote = {
  /**
   * Id to book or batch it with.
   */
  quoteId: number,
  /**
   * Carrier code.
   */
  carrierCode: string,
  /**
   * Service code.
   */
  serviceCode: string,
  /**
   * Service name.
   */
  serviceDescription: string,
  /**
   * Package type code.
   */
  packageTypeCode: string,
  /**
   * Currency of the amounts.
   */
  currency: string,
  /**
   * Total including surcharges.
   */
  totalAmount: number,
  /**
   * Base charge.
   */
  baseAmount: number,
  /**
   * Zone used.
   */
  zone: string,
  /**
   * Weight used for quoting.
   */
  quotedWeight: string,
  /**
   * `Actual` or `Dimensional`.
   */
  quotedWeightType: string,
  /**
   * Extension: business days in transit; null when the service has no transit time
   * for the route.
   */
  transitDays: number | null,
  /**
   * Extension: the estimated delivery date, `YYYY-MM-DD`; null when the service has
   * no transit time for the route.
   */
  estimatedDeliveryDate: string | null,
  /**
   * Extension: whether the carrier guarantees the date.
   */
  deliveryDateGuaranteed: boolean,
  /**
   * Surcharge lines.
   */
  surcharges: Array<QuoteSurcharge>,
};

/**
 * A surcharge line of a quote.
 */
export type QuoteSurcharge = {
  /**
   * What it is for.
   */
  description: string,
  /**
   * Amount.
   */
  amount: number,
};

/**
 * A service that could not be quoted for an otherwise processed shipment.
 */
export type QuoteError = {
  /**
   * Carrier code.
   */
  carrierCode: string,
  /**
   * Service code.
   */
  serviceCode: string,
  /**
   * Service name.
   */
  serviceDescription: string,
  /**
   * Package type code (empty when no package type applied).
   */
  packageTypeCode: string,
  /**
   * Reason.
   */
  error: string,
  /**
   * Error category code.
   */
  errorCategory: string,
  /**
   * Extension: when the service would arrive, for `DELIVERY_DATE_NOT_MET` (absent
   * otherwise, and when the service has no transit time for the route).
   */
  estimatedDeliveryDate?: string,
};

/**
 * Answer of batch quote.
 */
export type BatchQuoteResponse = {
  /**
   * One result per request shipment, in order.
   */
  results: Array<ShipmentQuotes>,
};

/**
 * The result of one shipment of a batch quote.
 */
export type ShipmentQuotes = {
  /**
   * Zero-based index into the request's shipments.
   */
  shipmentIndex: number,
  /**
   * `success` or `error`.
   */
  status: "success" | "error",
  /**
   * Quotes (success only).
   */
  quotes?: Array<Quote>,
  /**
   * Services that could not be quoted (success only).
   */
  quoteErrors?: Array<QuoteError>,
  /**
   * Reason (error only).
   */
  error?: string,
  /**
   * Error category (error only).
   */
  errorCategory?: string,
  /**
   * The fields at fault (error only; an extension naming them like the error body).
   */
  details?: FieldError[],
};

/**
 * Answer of the single-shipment quote when carrier, service or package type is open.
 */
export type QuotesResponse = {
  /**
   * Quotes.
   */
  quotes: Array<Quote>,
  /**
   * Services that could not be quoted.
   */
  quoteErrors: Array<QuoteError>,
};

/**
 * Answer of the single-shipment quote: one quote when carrier, service and package
 * type were all named, else the list.
 */
export type QuoteAnswer = Quote | QuotesResponse;

/**
 * Body of `POST .../shipments` (4.5), with the extensions of DECISIONS 6.
 */
export type BookShipmentRequest = {
  /**
   * Carrier code.
   */
  carrierCode: string,
  /**
   * Service code.
   */
  serviceCode: string,
  /**
   * Package type code.
   */
  packageTypeCode: string,
  /**
   * `YYYY-MM-DD`.
   */
  shipmentDate: string,
  /**
   * Reference, e.g. an invoice number.
   */
  shipmentReference?: string | null,
  /**
   * Second reference.
   */
  shipmentReference2?: string | null,
  /**
   * What the shipment holds.
   */
  contentDescription?: string | null,
  /**
   * Carrier-specific content type.
   */
  contentType?: string | null,
  /**
   * Invoice number of the order.
   */
  orderNumber?: string | null,
  /**
   * Ship from; every field required, zip may be null.
   */
  sender: Address,
  /**
   * Ship to; every field required, zip may be null.
   */
  receiver: Address,
  /**
   * Where returns go; every field optional.
   */
  returnTo?: Address | null,
  /**
   * The receiver address is residential.
   */
  residential?: boolean | null,
  /**
   * Signature option; null for none.
   */
  signatureOptionCode?: string | null,
  /**
   * Dangerous goods code (carrier E only).
   */
  dangerousGoodsCode?: string | null,
  /**
   * 10:30 AM delivery (carrier B only).
   */
  postalExpressAmDelivery?: boolean | null,
  /**
   * Saturday delivery.
   */
  saturdayDelivery?: boolean | null,
  /**
   * `lb`, `oz`, `kg` or `g`.
   */
  weightUnit: string,
  /**
   * `in`, `cm`, or null for preset package types. The key is required.
   */
  dimUnit: string | null,
  /**
   * Currency of insurance, declared and customs values.
   */
  currency: string,
  /**
   * Currency of customs values, when it differs.
   */
  customsCurrency?: string | null,
  /**
   * `PDF` (default), `EPL2` (carrier D) or `ZPL` (carriers A, B, D).
   */
  labelImageFormat?: string | null,
  /**
   * The packages; every piece carries all six keys.
   */
  pieces: Array<BookPiece>,
  /**
   * Recharge the prepay balance automatically when it runs low.
   */
  approvePrepayRecharge?: boolean | null,
  /**
   * Scan-based return label (carrier B only).
   */
  scanBasedReturnLabel?: boolean | null,
  /**
   * Commercial invoice.
   */
  commercialInvoice?: CommercialInvoice | null,
  /**
   * Who pays.
   */
  billing?: Billing | null,
  /**
   * A provider account of the customer for this carrier.
   */
  providerAccountId?: string | null,
  /**
   * Postal endorsement (carrier E only).
   */
  postalEndorsement?: string | null,
  /**
   * Extension: book this quote at its price.
   */
  quoteId?: number | string | null,
  /**
   * Extension: the same key and payload give the same answer, charged once.
   */
  idempotencyKey?: string | null,
  /**
   * Extension: the order this shipment fulfils.
   */
  fulfillment?: Fulfillment | null,
};

/**
 * A piece of a booking: weight, dimensions, insurance and declared value, every key
 * present (values may be null except the weight).
 */
export type BookPiece = {
  /**
   * Weight in `weightUnit`.
   */
  weight: Decimal,
  /**
   * Length; null for preset package types.
   */
  length: Decimal | null,
  /**
   * Width.
   */
  width: Decimal | null,
  /**
   * Height.
   */
  height: Decimal | null,
  /**
   * Insured value; null for none.
   */
  insuranceAmount: Decimal | null,
  /**
   * Declared value; null when domestic.
   */
  declaredValue: Decimal | null,
};

/**
 * The order a shipment fulfils (extension; also shown by search).
 */
export type Fulfillment = {
  /**
   * The order's id.
   */
  orderId: string,
  /**
   * The integration the order belongs to.
   */
  integrationId: string,
  /**
   * What this shipment carries of the order.
   */
  items: Array<FulfillmentItem>,
};

/**
 * An order line shipped.
 */
export type FulfillmentItem = {
  /**
   * Product id.
   */
  productId: string,
  /**
   * SKU.
   */
  sku: string,
  /**
   * Order line id.
   */
  lineId: string,
  /**
   * Quantity shipped.
   */
  quantity: number | string,
};

/**
 * Answer of book shipment (201).
 */
export type BookShipmentResponse = {
  /**
   * Unique id of the shipment.
   */
  bookNumber: string,
  /**
   * Carrier tracking number (of the first piece).
   */
  trackingNumber: string,
  /**
   * Prepay balance after booking, 2 decimals.
   */
  prepayBalance: string,
  /**
   * Zone used for the cost.
   */
  zone: string,
  /**
   * Carrier B multipiece shipments only: tracking number and cost of each piece.
   */
  pieces?: Array<BookedPiece>,
  /**
   * Extension: what the shipment cost, in `currency`.
   */
  totalShippingCost: number,
  /**
   * Extension: currency of `totalShippingCost`.
   */
  currency: string,
  /**
   * Extension: every tracking number, one per piece.
   */
  trackingNumbers: Array<string>,
  /**
   * The tracking number of the scan-based return label, when the booking asked for
   * one (`scanBasedReturnLabel`, carrier B); absent otherwise.
   */
  returnTrackingNumber?: string,
  /**
   * Extension: the estimated delivery date, `YYYY-MM-DD`, by the service's transit
   * time and its carrier's calendar; null when the service has none for the route.
   */
  estimatedDeliveryDate: string | null,
};

/**
 * A piece of a carrier B multipiece booking.
 */
export type BookedPiece = {
  /**
   * The piece's tracking number.
   */
  trackingNumber: string,
  /**
   * The piece's share of the cost, 2 decimals.
   */
  shippingCost: string,
};

/**
 * A booked shipment as search (4.3) and retrieve show it.
 */
export type ShipmentView = {
  /**
   * Unique id.
   */
  bookNumber: string,
  /**
   * Tracking number of the first piece.
   */
  trackingNumber: string,
  /**
   * All tracking numbers.
   */
  trackingNumbers: Array<string>,
  /**
   * True once voided.
   */
  voided: boolean,
  /**
   * Carrier code.
   */
  carrierCode: string,
  /**
   * Service code.
   */
  serviceCode: string,
  /**
   * Package type code.
   */
  packageTypeCode: string,
  /**
   * Shipment date.
   */
  shipmentDate: string,
  /**
   * Reference.
   */
  shipperReference: string,
  /**
   * The same reference under the name of the example payload.
   */
  shipmentReference: string,
  /**
   * Second reference.
   */
  shipperReference2: string,
  /**
   * What the shipment holds.
   */
  contentDescription: string,
  /**
   * Ship from.
   */
  sender: ViewAddress,
  /**
   * Ship to.
   */
  receiver: ViewAddress,
  /**
   * Residential delivery.
   */
  residential: boolean,
  /**
   * Signature option.
   */
  signatureOptionCode: string | null,
  /**
   * `lb` or `kg` (bookings in oz or g are converted).
   */
  weightUnit: string,
  /**
   * `in`, `cm` or null.
   */
  dimUnit: string | null,
  /**
   * Currency of values.
   */
  currency: string,
  /**
   * Currency of customs values.
   */
  customsCurrency: string | null,
  /**
   * The pieces, numbers as numeric strings.
   */
  pieces: Array<ViewPiece>,
  /**
   * The order this shipment fulfils.
   */
  fulfillment: Fulfillment | null,
  /**
   * What the shipment cost.
   */
  totalShippingCost: number,
  /**
   * Extension: the id of the order this shipment fulfils (`fulfillment.orderId`,
   * where clients look for it), or null.
   */
  orderId: string | null,
  /**
   * Extension: internal order number: as booked, else the number of the order the
   * shipment fulfils.
   */
  orderNumber: string,
  /**
   * Extension: the shipment's commercial invoice, or null when it was booked without
   * one.
   */
  commercialInvoice: ViewInvoice | null,
  /**
   * Extension: the tracking number of the shipment's scan-based return label, or null
   * when it was booked without one.
   */
  returnTrackingNumber: string | null,
  /**
   * Extension: the estimated delivery date at booking, `YYYY-MM-DD`; null when the
   * service has no transit time for the route (or for shipments booked before
   * consign estimated dates).
   */
  estimatedDeliveryDate: string | null,
};

/**
 * An address as search shows it (with phone and e-mail, which search matches).
 */
export type ViewAddress = {
  name: string,
  company: string,
  address1: string,
  address2: string,
  city: string,
  state: string,
  zip: string | null,
  country: string,
  phone: string,
  email: string,
};

/**
 * A piece as search shows it.
 */
export type ViewPiece = {
  /**
   * Weight in the view's `weightUnit`, numeric string.
   */
  weight: string,
  /**
   * Length, numeric string, or null.
   */
  length: string | null,
  /**
   * Width.
   */
  width: string | null,
  /**
   * Height.
   */
  height: string | null,
  /**
   * Insured value.
   */
  insuranceAmount: number | null,
  /**
   * Declared value.
   */
  declaredValue: number | null,
};

/**
 * A booked shipment's commercial invoice, as retrieve shipment and search show it; the
 * document is at `GET .../shipments/:bookNumber/commercialInvoice`.
 */
export type ViewInvoice = {
  /**
   * Whether the booking asked for the invoice to be sent to the carrier electronically
   * (`commercialInvoice.sendElectronically`).
   */
  sendElectronically: boolean,
};

/**
 * Answer of list shipments.
 */
export type ShipmentsResponse = {
  /**
   * Shipments by book number.
   */
  shipments: Array<ShipmentView>,
};

/**
 * Body of void shipment: `{"voided": true}`.
 */
export type VoidRequest = {
  /**
   * Must be true.
   */
  voided: boolean,
};

/**
 * Answer of void shipment.
 */
export type VoidResponse = {
  /**
   * The shipment.
   */
  bookNumber: string,
  /**
   * True.
   */
  voided: boolean,
  /**
   * Prepay balance after the refund, 2 decimals.
   */
  prepayBalance: string,
};

/**
 * Answer of retrieve label.
 */
export type LabelResponse = {
  /**
   * `PDF`, `ZPL` or `EPL2`.
   */
  labelImageFormat: string,
  /**
   * One label per piece, base64.
   */
  base64Images: Array<string>,
};

/**
 * Body of `POST .../shipments/multiple/labels/:labelImageFormat`: the shipments whose
 * labels to print together, in that order.
 */
export type LabelsRequest = {
  /**
   * Book numbers of the customer's shipments, at most 500.
   */
  bookNumbers: Array<string>,
};

/**
 * Answer of retrieve commercial invoice (the shape of the manifest answer).
 */
export type InvoiceResponse = {
  /**
   * The data type of `data`: `application/pdf`.
   */
  type: string,
  /**
   * The document, base64.
   */
  data: string,
};

/**
 * Body of create batch (optional).
 */
export type CreateBatchRequest = {
  /**
   * A name for people (optional).
   */
  name?: string | null,
};

/**
 * Answer of create batch.
 */
export type CreateBatchResponse = {
  /**
   * The new batch's id.
   */
  batchId: string,
};

/**
 * Body of add quotes to batch.
 */
export type AddQuotesRequest = {
  /**
   * Quotes to add, from batch quote.
   */
  quoteIds: Array<number | string>,
};

/**
 * A batch with its quotes.
 */
export type Batch = {
  /**
   * Id.
   */
  batchId: string,
  /**
   * Name, or empty.
   */
  name: string,
  /**
   * `open` or `booked`.
   */
  status: string,
  /**
   * When it was created.
   */
  createdAt: string,
  /**
   * Its quotes in the order they were added, with the book number once booked.
   */
  quotes: Array<BatchQuote>,
};

/**
 * A quote of a batch.
 */
export type BatchQuote = {
  /**
   * Book number once booked.
   */
  bookNumber: string | null,
  /**
   * Id to book or batch it with.
   */
  quoteId: number,
  /**
   * Carrier code.
   */
  carrierCode: string,
  /**
   * Service code.
   */
  serviceCode: string,
  /**
   * Service name.
   */
  serviceDescription: string,
  /**
   * Package type code.
   */
  packageTypeCode: string,
  /**
   * Currency of the amounts.
   */
  currency: string,
  /**
   * Total including surcharges.
   */
  totalAmount: number,
  /**
   * Base charge.
   */
  baseAmount: number,
  /**
   * Zone used.
   */
  zone: string,
  /**
   * Weight used for quoting.
   */
  quotedWeight: string,
  /**
   * `Actual` or `Dimensional`.
   */
  quotedWeightType: string,
  /**
   * Extension: business days in transit; null when the service has no transit time
   * for the route.
   */
  transitDays: number | null,
  /**
   * Extension: the estimated delivery date, `YYYY-MM-DD`; null when the service has
   * no transit time for the route.
   */
  estimatedDeliveryDate: string | null,
  /**
   * Extension: whether the carrier guarantees the date.
   */
  deliveryDateGuaranteed: boolean,
  /**
   * Surcharge lines.
   */
  surcharges: Array<QuoteSurcharge>,
};

/**
 * Answer of list batches.
 */
export type BatchesResponse = {
  /**
   * The customer's batches, newest first.
   */
  batches: Array<BatchSummary>,
};

/**
 * A batch in a list.
 */
export type BatchSummary = {
  /**
   * Id.
   */
  batchId: string,
  /**
   * Name, or empty.
   */
  name: string,
  /**
   * `open` or `booked`.
   */
  status: string,
  /**
   * When it was created.
   */
  createdAt: string,
  /**
   * How many quotes it holds.
   */
  quoteCount: number,
};

/**
 * Body of batch book.
 */
export type BatchBookRequest = {
  /**
   * The batch to book.
   */
  batchId: string,
  /**
   * Label format for every shipment (PDF by default).
   */
  labelImageFormat?: string | null,
  /**
   * Recharge the prepay balance automatically when it runs low.
   */
  approvePrepayRecharge?: boolean | null,
};

/**
 * Answer of batch book.
 */
export type BatchBookResponse = {
  /**
   * The batch.
   */
  batchId: string,
  /**
   * One result per quote, in batch order.
   */
  results: Array<BatchBookResult>,
  /**
   * Prepay balance after all the bookings, 2 decimals.
   */
  prepayBalance: string,
  /**
   * One PDF, base64, with every label of every quote booked (voided shipments left
   * out), a page per label in the order of `results`; null when none is booked.
   */
  labelsPdf: string | null,
};

/**
 * The booking of one quote of a batch.
 */
export type BatchBookResult = {
  /**
   * The quote.
   */
  quoteId: number,
  /**
   * `success` or `error`.
   */
  status: "success" | "error",
  /**
   * Book number (success).
   */
  bookNumber?: string,
  /**
   * Tracking number (success).
   */
  trackingNumber?: string,
  /**
   * Zone (success).
   */
  zone?: string,
  /**
   * What it cost (success).
   */
  totalShippingCost?: number | null,
  /**
   * Reason (error).
   */
  error?: string,
  /**
   * Error category (error).
   */
  errorCategory?: string,
  /**
   * Fields at fault (error).
   */
  details?: FieldError[],
};

/**
 * Body of `POST .../searchShipments` (4.3).
 */
export type SearchShipmentsRequest = {
  /**
   * Matched, case-insensitively and as a substring, on names, companies, phones,
   * e-mails, tracking numbers, order ids, book number, order number and references.
   */
  keyword: string,
};

/**
 * One tracking event (4.6); also the shape a carrier feed posts.
 */
export type TrackingEvent = {
  /**
   * The piece's tracking number.
   */
  trackingNumber: string,
  /**
   * Carrier code.
   */
  carrier: string,
  /**
   * Free text.
   */
  event: string,
  /**
   * One of the nine values of 2.9, e.g. `In Transit`.
   */
  eventStatus: EventStatus,
  /**
   * `YYYY-MM-DD HH:MM:SS`.
   */
  eventTime: string,
  /**
   * Location name; may be empty.
   */
  serviceArea: string,
  /**
   * ISO two-letter country code.
   */
  serviceAreaCountry: string,
};

/**
 * Body of `POST .../shipments/:bookNumber/tracking-events` (DECISIONS 9).
 */
export type RecordTrackingEventsRequest = {
  /**
   * The events, in the shape of 4.6; at most 1000.
   */
  events: Array<TrackingEvent>,
};

/**
 * Answer of recording tracking events.
 */
export type RecordTrackingEventsResponse = {
  /**
   * Events stored now.
   */
  recorded: number,
  /**
   * Events already stored before (or repeated in the request), ignored.
   */
  duplicates: number,
};

/**
 * Body of `POST .../pickups` (4.7): the pickup address fields are flat.
 */
export type SchedulePickupRequest = {
  /**
   * Carrier of every shipment listed.
   */
  carrierCode: string,
  /**
   * `YYYY-MM-DD`, today or later.
   */
  pickupDate: string,
  /**
   * `HH:MM:SS`, start of the window.
   */
  readyTime: string,
  /**
   * `HH:MM:SS`, end of the window, after `readyTime`.
   */
  closeTime: string,
  /**
   * The shipments to pick up.
   */
  bookNumbers: Array<string>,
  name?: string | null,
  company?: string | null,
  address1?: string | null,
  address2?: string | null,
  city?: string | null,
  state?: string | null,
  zip?: string | null,
  country?: string | null,
  phone?: string | null,
  /**
   * The pickup address is residential.
   */
  residential?: boolean | null,
  /**
   * For the driver.
   */
  specialInstructions?: string | null,
  /**
   * Where the packages wait (carrier C only).
   */
  packageLocation?: string | null,
};

/**
 * Answer of schedule pickup (201).
 */
export type PickupIdResponse = {
  /**
   * The new pickup's id.
   */
  pickupId: string,
};

/**
 * A scheduled pickup, as `GET .../pickups/:pickupId` and cancel show it.
 */
export type Pickup = {
  /**
   * Its id.
   */
  pickupId: string,
  /**
   * Carrier.
   */
  carrierCode: string,
  /**
   * Day of the pickup.
   */
  pickupDate: string,
  /**
   * Start of the window.
   */
  readyTime: string,
  /**
   * End of the window.
   */
  closeTime: string,
  /**
   * The shipments.
   */
  bookNumbers: Array<string>,
  /**
   * Where.
   */
  address: ViewAddress,
  /**
   * Residential pickup address.
   */
  residential: boolean,
  /**
   * For the driver.
   */
  specialInstructions: string | null,
  /**
   * Where the packages wait (carrier C).
   */
  packageLocation: string | null,
  /**
   * True once cancelled.
   */
  cancelled: boolean,
};

/**
 * Body of `POST .../manifest` (4.10): the sender address fields are flat.
 */
export type CreateManifestRequest = {
  /**
   * Carrier of every shipment listed.
   */
  carrierCode: string,
  /**
   * The shipments; each may be on one manifest only.
   */
  bookNumbers: Array<string>,
  name?: string | null,
  company?: string | null,
  address1?: string | null,
  address2?: string | null,
  city?: string | null,
  state?: string | null,
  zip?: string | null,
  country?: string | null,
  phone?: string | null,
};

/**
 * Answer of create manifest (201) and of `GET .../manifest/:manifestId`.
 */
export type ManifestResponse = {
  /**
   * The manifest's id.
   */
  manifestId: string,
  /**
   * The data type of `data`: `application/pdf`.
   */
  type: string,
  /**
   * The document, base64.
   */
  data: string,
  /**
   * Extension: the shipments on it, in order.
   */
  bookNumbers: Array<string>,
};

/**
 * Body of `PUT .../integrations/:integrationId/orders/:orderId` (4.2), and the order as
 * `GET` shows it. The spec marks the nullable keys required; clients leave out those
 * whose value is null, so a missing nullable key reads as null (DECISIONS 1). The keys
 * whose value may not be null stay required.
 */
export type Order = {
  /**
   * Must equal `:orderId`.
   */
  orderId: string,
  /**
   * `YYYY-MM-DD` (a full RFC 3339 time is accepted).
   */
  orderDate: string,
  /**
   * Invoice number, or null.
   */
  orderNumber?: string | null,
  /**
   * `pending`, `fulfilled` or `partial`.
   */
  fulfillmentStatus: string,
  /**
   * Shipping service name, or null.
   */
  shippingService?: string | null,
  /**
   * Label reference; defaults to the order number, else the order id.
   */
  shipperReference?: string | null,
  /**
   * Second reference.
   */
  shipperReference2?: string | null,
  /**
   * What the order holds.
   */
  contentDescription?: string | null,
  /**
   * What the buyer paid for shipping, or null.
   */
  shippingTotal?: Decimal | null,
  /**
   * `lb`, `kg` or null.
   */
  weightUnit?: string | null,
  /**
   * `in`, `cm` or null.
   */
  dimUnit?: string | null,
  /**
   * `YYYY-MM-DD` or null.
   */
  dueByDate?: string | null,
  /**
   * Order group or null.
   */
  orderGroup?: string | null,
  /**
   * Ship from: name, address1, city, state, zip, country required.
   */
  sender: Address,
  /**
   * Where returns go; every field optional.
   */
  returnTo?: Address | null,
  /**
   * Ship to: name, address1, city, state, zip, country required.
   */
  receiver: Address,
  /**
   * Order lines, or null.
   */
  items?: Array<OrderItem> | null,
  /**
   * Precalculated packages, or null.
   */
  packages?: Array<OrderPackage> | null,
};

/**
 * An order line (4.2 `items[n]`); every field optional.
 */
export type OrderItem = {
  productId?: string | null,
  sku?: string | null,
  title?: string | null,
  /**
   * Per-unit price.
   */
  price?: Decimal | null,
  /**
   * Units ordered (1 when absent).
   */
  quantity?: number | string | null,
  /**
   * Per-unit weight in the order's `weightUnit`.
   */
  weight?: Decimal | null,
  imgUrl?: string | null,
  htsNumber?: string | null,
  countryOfOrigin?: string | null,
  lineId?: string | null,
  pickLocation?: string | null,
};

/**
 * A precalculated package (4.2 `packages[n]`); every field optional.
 */
export type OrderPackage = {
  weight?: Decimal | null,
  length?: Decimal | null,
  width?: Decimal | null,
  height?: Decimal | null,
  insuranceAmount?: Decimal | null,
  declaredValue?: Decimal | null,
};

/**
 * One event of a customer's feed (`GET .../events`).
 */
export type Event = {
  /**
   * The event's number in the customer's feed, from 1, in commit order.
   */
  id: number,
  /**
   * The event's type: one of `consign::EVENT_TYPES`, such as `shipment.booked`.
   */
  type: string,
  /**
   * The id of what changed: a book number, a batch, pickup or manifest id,
   * `<integrationId>/<orderId>` for an order, a ledger entry id for prepay events.
   */
  subjectId: string,
  /**
   * When the change committed, by the service's clock (RFC 3339, UTC).
   */
  createdAt: string,
  /**
   * What changed, after the change: the JSON its retrieve route answers (the
   * shipment, batch, pickup, manifest, order or ledger entry), or for tracking and
   * return label events a [`TrackingUpdate`] or [`ReturnLabelUse`].
   */
  data: unknown,
};

/**
 * A page of events (`GET .../events?after=&limit=&types=`).
 */
export type EventsResponse = {
  /**
   * The events after the cursor, oldest first.
   */
  events: Array<Event>,
  /**
   * The cursor of the next page: send it as `after`.
   */
  nextCursor: string,
  /**
   * Whether events after `nextCursor` exist now (more may come at any time).
   */
  hasMore: boolean,
};

/**
 * An event of a commit, as `ShippingBuilder::on_commit` gives it: the customer whose
 * feed holds it, and the event as the feed shows it.
 */
export type CommittedEvent = {
  /**
   * The customer whose feed holds the event.
   */
  customerId: string,
  /**
   * The event.
   */
  event: Event,
};

/**
 * The data of `tracking.updated` and `shipment.delivered`: the events just recorded
 * and where the shipment stands.
 */
export type TrackingUpdate = {
  /**
   * The shipment's book number.
   */
  bookNumber: string,
  /**
   * The status of the shipment's latest event (as trackShipment lists them, first).
   */
  status: string,
  /**
   * The events recorded by this change (duplicates left out), as trackShipment shows them.
   */
  newEvents: Array<TrackingEvent>,
};

/**
 * The data of `return_label.used`: a scan-based return label's first scan, and its charge.
 */
export type ReturnLabelUse = {
  /**
   * The shipment's book number.
   */
  bookNumber: string,
  /**
   * The return label's tracking number.
   */
  returnTrackingNumber: string,
  /**
   * What the return cost, charged to the prepay balance (USD, 2 decimals).
   */
  charge: string,
  /**
   * The prepay balance after the charge (USD, 2 decimals; negative for a debt).
   */
  balanceAfter: string,
  /**
   * When the label was first scanned (RFC 3339, UTC).
   */
  usedAt: string,
};
