//! A small page-by-page PDF builder over `pdf-writer`: standard fonts, text lines,
//! filled rectangles and Code 128 barcodes.
//!
//! The content streams are left uncompressed: a label is a few kilobytes either way,
//! and plain streams keep rendering fast and the text easy to extract.

use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use super::code128;
use super::text::{fit_winansi, shrink_to_fit, Font};
use super::DocumentError;

const REGULAR: Name<'static> = Name(b"F1");
const BOLD: Name<'static> = Name(b"F2");

/// Helvetica's ascent as drawn: a line of text with its top at `y` has its baseline
/// `size * 3/4` lower (the cap height is 0.718 em).
const ASCENT_NUM: f32 = 0.75;

/// A PDF document being built.
pub(crate) struct Document {
    pdf: Pdf,
    tree: Ref,
    regular: Ref,
    bold: Ref,
    next: i32,
    pages: Vec<Ref>,
}

impl Document {
    /// Starts a document whose info dictionary carries `title`.
    pub(crate) fn new(title: &str) -> Self {
        let mut pdf = Pdf::with_capacity(8 * 1024);
        let catalog = Ref::new(1);
        let tree = Ref::new(2);
        let regular = Ref::new(3);
        let bold = Ref::new(4);
        pdf.catalog(catalog).pages(tree);
        pdf.type1_font(regular).base_font(Name(b"Helvetica")).encoding_predefined(Name(b"WinAnsiEncoding"));
        pdf.type1_font(bold).base_font(Name(b"Helvetica-Bold")).encoding_predefined(Name(b"WinAnsiEncoding"));
        let info = Ref::new(5);
        pdf.document_info(info).title(TextStr(title)).producer(TextStr("consign"));
        Self { pdf, tree, regular, bold, next: 6, pages: Vec::new() }
    }

    fn alloc(&mut self) -> Result<Ref, DocumentError> {
        let id = self.next;
        self.next = self.next.checked_add(1).ok_or(DocumentError::TooLarge)?;
        Ok(Ref::new(id))
    }

    /// Adds a page of `width` x `height` points with the drawing of `canvas`.
    pub(crate) fn add_page(&mut self, canvas: Canvas) -> Result<(), DocumentError> {
        let page = self.alloc()?;
        let content = self.alloc()?;
        let (width, height) = (canvas.width, canvas.height);
        let data = canvas.content.finish();
        self.pdf.stream(content, &data);
        let mut p = self.pdf.page(page);
        p.parent(self.tree).media_box(Rect::new(0.0, 0.0, width as f32, height as f32)).contents(content);
        p.resources().fonts().pair(REGULAR, self.regular).pair(BOLD, self.bold);
        p.finish();
        self.pages.push(page);
        Ok(())
    }

    /// The finished file.
    pub(crate) fn finish(mut self) -> Result<Vec<u8>, DocumentError> {
        let count = i32::try_from(self.pages.len()).map_err(|_| DocumentError::TooLarge)?;
        self.pdf.pages(self.tree).kids(self.pages.iter().copied()).count(count);
        Ok(self.pdf.finish())
    }
}

/// The drawing of one page, in points from the top-left corner of the page, or of the
/// region [`Canvas::set_origin`] chose.
pub(crate) struct Canvas {
    content: Content,
    width: u32,
    height: u32,
    /// Where (0, 0) of the drawing calls is on the page, from its top-left corner.
    origin: (u32, u32),
}

impl Canvas {
    /// An empty page of `width` x `height` points.
    pub(crate) fn new(width: u32, height: u32) -> Self {
        Self { content: Content::with_capacity(4 * 1024), width, height, origin: (0, 0) }
    }

    /// Draws from now on with (0, 0) at (`x`, `y`) of the page: a label placed on a sheet.
    pub(crate) fn set_origin(&mut self, x: u32, y: u32) {
        self.origin = (x, y);
    }

    /// A page x and a PDF y (from the bottom) for the point `y` points below the origin's
    /// top, `extra` points lower still.
    fn at(&self, x: u32, y: u32, extra: f32) -> (f32, f32) {
        ((self.origin.0 + x) as f32, self.height as f32 - (self.origin.1 + y) as f32 - extra)
    }

    /// The page width in points.
    pub(crate) fn width(&self) -> u32 {
        self.width
    }

    /// Draws `s` with its top at (`x`, `y`), shrunk towards `min_size` and then cut so
    /// it fits `max_width`; centred on `x + max_width / 2` when `center`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn text(&mut self, x: u32, y: u32, size: u32, min_size: u32, font: Font, max_width: u32, center: bool, s: &str) {
        let size = if min_size < size { shrink_to_fit(s, font, size, min_size, max_width) } else { size };
        let bytes = fit_winansi(s, font, size, max_width);
        if bytes.is_empty() {
            return;
        }
        let (mut x, baseline) = self.at(x, y, ASCENT_NUM * size as f32);
        if center {
            let em: u32 = bytes.iter().map(|&b| super::text::byte_width(font, b)).sum();
            let w = em as f32 * size as f32 / 1000.0;
            x += ((max_width as f32 - w) / 2.0).max(0.0);
        }
        let name = match font {
            Font::Regular => REGULAR,
            Font::Bold => BOLD,
        };
        self.content.begin_text().set_font(name, size as f32).next_line(x, baseline).show(Str(&bytes)).end_text();
    }

    /// Fills the rectangle with its top-left corner at (`x`, `y`).
    pub(crate) fn rect(&mut self, x: u32, y: u32, width: u32, height: u32) {
        let (x, bottom) = self.at(x, y, height as f32);
        self.content.rect(x, bottom, width as f32, height as f32).fill_nonzero();
    }

    /// Draws the Code 128 barcode of `data` with its top at `y`, `height` points tall,
    /// centred in the band of `max_width` points starting at `x`, with a module no wider
    /// than 1.5 pt. Returns false (and draws nothing) when `data` cannot be encoded or
    /// would need modules too thin to scan.
    pub(crate) fn barcode(&mut self, x: u32, y: u32, height: u32, max_width: u32, data: &str) -> bool {
        let Some((runs, total)) = code128::bars(data) else {
            return false;
        };
        // Ten modules of quiet zone on each side.
        let module = (max_width as f32 / (total + 20) as f32).min(1.5);
        if module < 0.5 {
            return false;
        }
        let width = module * total as f32;
        let (x, bottom) = self.at(x, y, height as f32);
        let left = x + (max_width as f32 - width) / 2.0;
        for (start, run) in runs {
            self.content.rect(left + start as f32 * module, bottom, run as f32 * module, height as f32);
        }
        self.content.fill_nonzero();
        true
    }
}
