//! The limits of the interface: the most items one request, list or answer may hold.
//! The wire types check them as they read a body, and the operations that enforce
//! them import them from here.

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
