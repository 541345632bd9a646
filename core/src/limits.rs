//! The limits of the interface: the most items one request, list or answer may hold,
//! and the largest request bodies. The wire types check them as they read a body, the
//! operations that enforce them import them from here, and a front end reads the body
//! limits to refuse a body before reading it.

/// Most integrated quoting options of a customer.
pub const MAX_QUOTING_OPTIONS: usize = 100;

/// Most lines of an order, and most items of one fulfilment.
pub const MAX_ORDER_LINES: usize = 1000;

/// Most shipments one pickup or manifest may list.
pub const MAX_SHIPMENTS: usize = 500;

/// Most events one feed request may carry.
pub const MAX_FEED_EVENTS: usize = 1000;

/// Most quotes one batch may hold.
pub const MAX_BATCH_QUOTES: usize = 500;

/// Most pieces one shipment may have.
pub const MAX_PIECES: usize = 99;

/// Most line items of one piece.
pub const MAX_LINE_ITEMS: usize = 100;

/// Most items of one commercial invoice.
pub const MAX_INVOICE_ITEMS: usize = 100;

/// Most carrier C tax ids of one commercial invoice (part 8).
pub const MAX_TAX_IDS: usize = 2;

/// Most shipments in one batch quote (part 8).
pub const MAX_BATCH: usize = 500;

/// Most 4x6 label pages one answer holds: a page per piece, and a page after a piece's
/// label for its customs declaration where one is printed (on office sheets, two per
/// sheet). The merged labels route and a batch book's `labelsPdf` are refused past it
/// before anything is rendered. 1,000 holds a full pickup or batch (500 shipments) of
/// one-piece shipments abroad with their declarations, and keeps one answer near 2.3 MB
/// of PDF (990 pages measured: 2.3 MB, 3.0 MB in base64).
pub const MAX_LABEL_PAGES: usize = 1000;

/// Most shipments a search returns (spec part 8).
pub const MAX_RESULTS: i64 = 100;

/// Largest request body accepted, in bytes: 16 MiB. The largest legitimate request, a
/// batch quote of 500 international shipments of 10 pieces with 10 line items each and a
/// 100-item commercial invoice, every text at its carrier's longest, is 15.9 MiB; a
/// typical 500-shipment batch is 1.3 MiB (`docs/DECISIONS.md`, "Limits").
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// Largest request body of a route that carries one shipment, one order or a feed of
/// tracking events: 4 MiB. The largest legitimate shipment, 99 pieces of 100 line items
/// with a 100-item commercial invoice, every text at its carrier's longest, is
/// 1.2 MB; 4 MiB leaves an order of 1,000 lines (or a feed of 1,000 events) 4 KiB each
/// (`docs/DECISIONS.md`, "Limits").
pub const MAX_SHIPMENT_BODY: usize = 4 * 1024 * 1024;

/// Largest request body of every other route: 1 MiB, far above what they take (a few
/// hundred book numbers or quote ids at most).
pub const MAX_SMALL_BODY: usize = 1024 * 1024;
