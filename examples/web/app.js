// The page: a shipment form, the quotes of every service sorted by price, booking, the
// PDF label, and the shipments booked so far (they survive a reload). The shipping
// service runs in worker.js; `consign.<method>(...)` calls the package's method there.

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
  const address = (who) => ({ name: f[`${who}Name`], company: "", address1: f[`${who}Address1`], address2: "",
    city: f[`${who}City`], state: f[`${who}State`].toUpperCase(), zip: f[`${who}Zip`], country: "US", phone: f[`${who}Phone`] });
  return {
    shipmentDate: f.shipmentDate, shipmentReference: "web-demo", contentDescription: "merchandise",
    sender: address("sender"), receiver: address("receiver"), residential: f.residential === "on",
    weightUnit: "lb", dimUnit: "in", currency: "USD",
    pieces: [{ weight: f.weight, length: f.length, width: f.width, height: f.height, insuranceAmount: null, declaredValue: null }],
  };
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

function showQuotes(quotes, errors) {
  const body = $("#quotes tbody");
  body.replaceChildren();
  for (const q of [...quotes].sort((a, b) => a.totalAmount - b.totalAmount)) {
    const row = body.insertRow();
    for (const text of [q.carrierCode, q.serviceDescription, q.packageTypeCode, q.zone, `${q.quotedWeight} lb`]) {
      row.insertCell().textContent = text;
    }
    const price = row.insertCell();
    price.className = "num";
    price.textContent = money(q.totalAmount);
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
    $("#booked").hidden = false;
    $("#quotes").hidden = true;
    $("#unavailable").hidden = true;
    say(`Booked with ${q.serviceDescription}.`);
    await showHistory();
  } catch (e) {
    say(explain(e), true);
    button.disabled = false;
  } finally {
    document.querySelectorAll("#quotes button").forEach((b) => (b.disabled = false));
  }
}

// The label endpoint answers base64; the browser opens it from a Blob URL.
async function linkLabel(bookNumber) {
  const { base64Images: [pdf] } = await consign.label(customerId, bookNumber, "PDF");
  const bytes = Uint8Array.from(atob(pdf), (c) => c.charCodeAt(0));
  const link = $("#label");
  if (link.href) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([bytes], { type: "application/pdf" }));
  link.title = `label-${bookNumber}.pdf`;
}

async function showHistory() {
  const { shipments } = await consign.shipments(customerId, { limit: 100 });
  const body = $("#history tbody");
  body.replaceChildren();
  for (const s of [...shipments].reverse()) {
    const row = body.insertRow();
    for (const text of [s.bookNumber, s.trackingNumber, s.serviceCode, `${s.receiver.city}, ${s.receiver.state}`]) {
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

const date = new Date();
date.setDate(date.getDate() + 1);
$("#shipment").shipmentDate.value = date.toLocaleDateString("sv"); // YYYY-MM-DD, local
$("#shipment").addEventListener("submit", quote);
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
