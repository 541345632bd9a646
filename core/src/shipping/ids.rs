//! Typed ids for the facade's methods that take more than one id, so that a customer's
//! id and a book number cannot change places unseen.

use std::fmt;

/// A customer's id (`C0000001`), as the path parameter `:customerId` carries it.
///
/// ```
/// use consign::{BookNumber, CustomerId, Shipping};
///
/// let shipping = Shipping::open_in_memory().unwrap();
/// let unknown = shipping.shipment(CustomerId("C0000001"), BookNumber("1000000001")).unwrap_err();
/// assert_eq!(unknown.category(), consign::ErrorCategory::NotFound);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CustomerId<'a>(pub &'a str);

/// A booked shipment's book number (`1000000001`), as the path parameter `:bookNumber`
/// carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BookNumber<'a>(pub &'a str);

impl fmt::Display for CustomerId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Display for BookNumber<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}
