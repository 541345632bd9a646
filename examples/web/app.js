// The page: a shipment form, the quotes of every service sorted by price, booking, the
// PDF label (and the commercial invoice of an international shipment), the shipments
// booked so far (they survive a reload) and the day's labels in one PDF. The shipping
// service runs in worker.js; `consign.<method>(...)` calls the package's method there.
// The list of shipments refreshes from the service's events, which the worker posts to
// a BroadcastChannel: in this tab and in every other tab of the page.

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
let nextId = 0;
const pending = new Map();
worker.onmessage = ({ data: { id, value, error } }) => {
  const { resolve, reject } = pending.get(id);
  pending.delete(id);
  if (error) reject(Object.assign(new Error(error.message), error));
  else resolve(value);
};
const consign = new Proxy({}, {
  get: (_, op) => (...args) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  }),
});

// The demo account: found by its e-mail, created on the first visit.
const ACCOUNT = { username: "demo@consign.example", password: "demo-password-1" };
const HOME = { name: "Ann Lee", company: "", address1: "200 Market St", address2: "", city: "Philadelphia",
  state: "PA", zip: "19106", country: "US", phone: "215-555-0142" };

const $ = (sel) => document.querySelector(sel);
const money = (n) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(n);
let customerId;
let lastShipment;
let lastQuotes = [];
let lastErrors = [];

function say(text, isError = false) {
  $("#status").textContent = text;
  $("#status").classList.toggle("error", isError);
}

function explain(e) {
  const fields = (e.details || []).map((d) => `${d.field}: ${d.message}`);
  return fields.length ? fields.join("; ") : e.message;
}

async function account() {
  try {
    return (await consign.connectCustomer(ACCOUNT)).customerId;
  } catch (e) {
    if (e.errorCategory !== "UNAUTHORIZED") throw e;
    const { customerId } = await consign.createCustomer({
      profileCode: "Default", email: ACCOUNT.username, password: ACCOUNT.password,
      mailingAddress: HOME, billingAddress: HOME,
      prepaySettings: { minimumBalance: 25, rechargeAmount: 100 },
    });
    await consign.updatePaymentMethod(customerId, {
      billingAddress: HOME,
      paymentMethod: { paymentMethodType: "processorCardToken", processorCardTokenId: "tok_demo_4242" },
    });
    return customerId;
  }
}

function shipmentFromForm() {
  const f = Object.fromEntries(new FormData($("#shipment")));
  const address = (who, country) => ({ name: f[`${who}Name`], company: "", address1: f[`${who}Address1`], address2: "",
    city: f[`${who}City`], state: f[`${who}State`].toUpperCase(), zip: f[`${who}Zip`], country, phone: f[`${who}Phone`] });
  const shipment = {
    shipmentDate: f.shipmentDate, shipmentReference: "web-demo", contentDescription: "merchandise",
    sender: address("sender", "US"), receiver: address("receiver", f.receiverCountry), residential: f.residential === "on",
    weightUnit: "lb", dimUnit: "in", currency: "USD",
    pieces: [{ weight: f.weight, length: f.length, width: f.width, height: f.height, insuranceAmount: null, declaredValue: null }],
  };
  if (f.receiverCountry !== "US") {
    // Abroad: the contents go on a commercial invoice, which booking prints.
    shipment.commercialInvoice = {
      sendElectronically: false, ftrNumber: "30.37(a)", itnNumber: null, aesNumber: null, termsOfTrade: "DAP",
      receiverTaxId: "", senderVatTaxId: "", packageMarks: "web-demo",
      items: [{ description: f.itemDescription, quantity: Number(f.itemQuantity), unitValue: f.itemValue,
        htsNumber: f.itemHts, countryOfOrigin: "US" }],
    };
  }
  return shipment;
}

async function quote(event) {
  event.preventDefault();
  $("#quote").disabled = true;
  $("#booked").hidden = true;
  say("Quoting every service…");
  try {
    lastShipment = shipmentFromForm();
    const { results: [result] } = await consign.batchQuote(customerId, { shipments: [lastShipment] });
    if (result.status !== "success") throw Object.assign(new Error(result.error), result);
    showQuotes(result.quotes, result.quoteErrors);
    say(`${result.quotes.length} services can carry this shipment.`);
  } catch (e) {
    $("#quotes").hidden = true;
    say(explain(e), true);
  } finally {
    $("#quote").disabled = false;
  }
}

// Quotes without an estimated date sort after every dated one.
const arrival = (q) => q.estimatedDeliveryDate ?? "9999-12-31";
const byPrice = (a, b) => a.totalAmount - b.totalAmount || arrival(a).localeCompare(arrival(b));
const byArrival = (a, b) => arrival(a).localeCompare(arrival(b)) || a.totalAmount - b.totalAmount;

/** "Mon, Nov 30 (2 days, guaranteed)" for a quote, or "no estimate". */
function arrives(q) {
  if (!q.estimatedDeliveryDate) return "no estimate";
  const date = new Date(`${q.estimatedDeliveryDate}T12:00:00`).toLocaleDateString("en-US",
    { weekday: "short", month: "short", day: "numeric" });
  const days = `${q.transitDays} day${q.transitDays === 1 ? "" : "s"}`;
  return `${date} (${days}${q.deliveryDateGuaranteed ? ", guaranteed" : ""})`;
}

function showQuotes(quotes, errors) {
  [lastQuotes, lastErrors] = [quotes, errors];
  const body = $("#quotes tbody");
  body.replaceChildren();
  const order = $("#sortBy").value === "arrival" ? byArrival : byPrice;
  for (const q of [...quotes].sort(order)) {
    const row = body.insertRow();
    row.dataset.arrives = q.estimatedDeliveryDate ?? "";
    for (const text of [q.carrierCode, q.serviceDescription, q.packageTypeCode, q.zone, `${q.quotedWeight} lb`]) {
      row.insertCell().textContent = text;
    }
    const price = row.insertCell();
    price.className = "num";
    price.textContent = money(q.totalAmount);
    row.insertCell().textContent = arrives(q);
    const book = document.createElement("button");
    book.textContent = "Book";
    book.onclick = () => bookQuote(q, book);
    row.insertCell().append(book);
  }
  $("#quotes").hidden = quotes.length === 0;
  const list = $("#unavailable ul");
  list.replaceChildren(...errors.map((e) => Object.assign(document.createElement("li"),
    { textContent: `${e.serviceDescription} (${e.carrierCode}): ${e.error}` })));
  $("#unavailable summary").textContent = `${errors.length} services cannot carry it`;
  $("#unavailable").hidden = errors.length === 0;
}

async function bookQuote(q, button) {
  document.querySelectorAll("#quotes button").forEach((b) => (b.disabled = true));
  say(`Booking ${q.serviceDescription}…`);
  try {
    const booked = await consign.bookShipment(customerId, {
      ...lastShipment, carrierCode: q.carrierCode, serviceCode: q.serviceCode, packageTypeCode: q.packageTypeCode,
      quoteId: q.quoteId, labelImageFormat: "PDF", approvePrepayRecharge: true,
    });
    $("#tracking").textContent = booked.trackingNumber;
    $("#bookNumber").textContent = booked.bookNumber;
    $("#charged").textContent = money(booked.totalShippingCost);
    $("#balance").textContent = money(Number(booked.prepayBalance));
    await linkLabel(booked.bookNumber);
    await linkInvoice(booked.bookNumber, Boolean(lastShipment.commercialInvoice));
    $("#booked").hidden = false;
    $("#quotes").hidden = true;
    $("#unavailable").hidden = true;
    say(`Booked with ${q.serviceDescription}.`);
  } catch (e) {
    say(explain(e), true);
    button.disabled = false;
  } finally {
    document.querySelectorAll("#quotes button").forEach((b) => (b.disabled = false));
  }
}

// Documents come base64; the browser opens them from a Blob URL.
function linkPdf(link, base64, title) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  if (link.href) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([bytes], { type: "application/pdf" }));
  link.title = title;
  link.hidden = false;
}

async function linkLabel(bookNumber) {
  const { base64Images: [pdf] } = await consign.label(customerId, bookNumber, "PDF");
  linkPdf($("#label"), pdf, `label-${bookNumber}.pdf`);
}

async function linkInvoice(bookNumber, invoiced) {
  $("#invoice").hidden = true;
  if (!invoiced) return;
  const { data } = await consign.commercialInvoice(customerId, bookNumber);
  linkPdf($("#invoice"), data, `invoice-${bookNumber}.pdf`);
}

// Every label of the shipments (not voided) that ship on the form's date, in one PDF.
async function printDay() {
  const day = $("#shipment").shipmentDate.value;
  try {
    const { shipments } = await consign.shipments(customerId, { limit: 100 });
    const bookNumbers = shipments.filter((s) => !s.voided && s.shipmentDate === day).map((s) => s.bookNumber);
    if (!bookNumbers.length) return say(`No shipments ship on ${day}.`, true);
    const layout = $("#dayLayout").value;
    const { base64Images: [pdf] } = await consign.labels(customerId, "PDF", { bookNumbers }, layout);
    linkPdf($("#dayLabels"), pdf, `labels-${day}.pdf`);
    say(`${bookNumbers.length} shipments' labels for ${day} are ready.`);
  } catch (e) {
    say(explain(e), true);
  }
}

async function showHistory() {
  const { shipments } = await consign.shipments(customerId, { limit: 100 });
  const body = $("#history tbody");
  body.replaceChildren();
  for (const s of [...shipments].reverse()) {
    const row = body.insertRow();
    for (const text of [s.bookNumber, s.trackingNumber, s.serviceCode, `${s.receiver.city}, ${s.receiver.state || s.receiver.country}`]) {
      row.insertCell().textContent = text;
    }
    const cost = row.insertCell();
    cost.className = "num";
    cost.textContent = s.voided ? "voided" : money(s.totalShippingCost);
  }
  if (!shipments.length) Object.assign(body.insertRow().insertCell(), { colSpan: 5, textContent: "None yet." });
}

async function exportDatabase() {
  const bytes = await consign.exportDatabase();
  const a = Object.assign(document.createElement("a"), {
    href: URL.createObjectURL(new Blob([bytes], { type: "application/vnd.sqlite3" })), download: "consign.sqlite3" });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function importDatabase(event) {
  const [file] = event.target.files;
  if (!file) return;
  try {
    $("#storage").textContent = await consign.importDatabase(new Uint8Array(await file.arrayBuffer()));
    await start();
    say(`Imported ${file.name}.`);
  } catch (e) {
    say(`Could not import ${file.name}: ${explain(e)}`, true);
  }
}

async function start() {
  customerId = await account();
  await showHistory();
}

// A shipment booked or voided, here or in another tab: the list shows it.
new BroadcastChannel("consign-demo-events").onmessage = ({ data: events }) => {
  if (customerId && events.some((e) => e.customerId === customerId && e.event.type.startsWith("shipment."))) showHistory();
};

const date = new Date();
date.setDate(date.getDate() + 1);
$("#shipment").shipmentDate.value = date.toLocaleDateString("sv"); // YYYY-MM-DD, local
$("#shipment").addEventListener("submit", quote);
$("#shipment").receiverCountry.addEventListener("change", (e) => ($("#customs").hidden = e.target.value === "US"));
$("#printDay").addEventListener("click", printDay);
$("#sortBy").addEventListener("change", () => showQuotes(lastQuotes, lastErrors));
$("#export").addEventListener("click", exportDatabase);
$("#import").addEventListener("change", importDatabase);
try {
  $("#storage").textContent = await consign.storage();
  await start();
  say("Ready. Fill in the shipment and get quotes.");
  document.body.dataset.ready = "true";
} catch (e) {
  say(`consign did not start: ${explain(e)}`, true);
}
