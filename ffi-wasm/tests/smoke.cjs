// The Node package as a user loads it (ffi-wasm/pkg/node, from scripts/build-wasm):
// the README's example, a thrown error's fields, and export/import of the bytes.
const assert = require("node:assert/strict");
const { resolve } = require("node:path");
const { Shipping, onEvent } = require(resolve(__dirname, "../pkg/node"));

const home = { name: "Ann Lee", company: "", address1: "200 Market St", address2: "", city: "Philadelphia",
  state: "PA", zip: "19106", country: "US", phone: "215-555-0142" };
const shipping = new Shipping();
const { customerId } = shipping.createCustomer({
  profileCode: "Default", email: "ann@example.com", password: "correct horse",
  mailingAddress: home, billingAddress: home, prepaySettings: { minimumBalance: 25, rechargeAmount: 100 },
});
const { services } = shipping.listServices(customerId);
assert.ok(services.some((s) => s.serviceCode === "parcel_ground"));
const day = new Date(Date.now() + 7 * 86400_000);
while ([0, 6].includes(day.getDay())) day.setDate(day.getDate() + 1);
const { results: [r] } = shipping.batchQuote(customerId, { shipments: [{
  shipmentDate: day.toISOString().slice(0, 10), shipmentReference: "smoke", sender: home,
  receiver: { ...home, city: "Seattle", state: "WA", zip: "98101" },
  weightUnit: "lb", dimUnit: "in", currency: "USD", pieces: [{ weight: 2, length: 10, width: 8, height: 6 }],
}] });
assert.equal(r.status, "success", JSON.stringify(r));
assert.equal(typeof r.quotes[0].totalAmount, "number");

assert.throws(() => shipping.listServices("C9999999"), (e) =>
  e instanceof Error && e.status === 404 && e.errorCategory === "NOT_FOUND" && Array.isArray(e.details));
assert.throws(() => new Shipping({ now: "yesterday" }), /RFC 3339/);

const copy = Shipping.fromBytes(shipping.exportDatabase());
assert.equal(copy.prepay(customerId).balance, shipping.prepay(customerId).balance);
assert.equal(shipping.handle("GET", `/restapi/v1/customers/${customerId}/prepay`).status, 200);

// A booking's events: to the service's own onEvent before the method returns, and to
// onEvent of its channel elsewhere (here another BroadcastChannel of this process).
(async () => {
  const told = [];
  const service = new Shipping({ channel: "consign-smoke" });
  service.onEvent((events) => told.push(...events));
  const heard = new Promise((resolve) => {
    const channel = onEvent("consign-smoke", (events) => {
      if (events.some((e) => e.event.type === "shipment.booked")) {
        channel.close();
        resolve(events);
      }
    });
  });
  const { customerId: id } = service.createCustomer({
    profileCode: "Default", email: "bo@example.com", password: "correct horse",
    mailingAddress: home, billingAddress: home, prepaySettings: { minimumBalance: 25, rechargeAmount: 100 },
  });
  const booked = service.bookShipment(id, {
    shipmentDate: day.toISOString().slice(0, 10), shipmentReference: "smoke", sender: home,
    receiver: { ...home, city: "Seattle", state: "WA", zip: "98101" }, carrierCode: "postal",
    serviceCode: "postal_priority_mail", packageTypeCode: "postal_custom", weightUnit: "lb", dimUnit: "in", currency: "USD",
    pieces: [{ weight: 2, length: 10, width: 8, height: 6, insuranceAmount: null, declaredValue: null }],
  });
  assert.deepEqual(told.map((e) => e.event.type), ["prepay.recharged", "prepay.charged", "shipment.booked"]);
  assert.equal(told[2].customerId, id);
  assert.equal(told[2].event.subjectId, booked.bookNumber);
  assert.deepEqual(told.map((e) => e.event), service.events(id).events, "what the feed holds");
  const broadcast = await heard;
  assert.deepEqual(broadcast, told.slice(1), "the booking's commit, as its onEvent was told it");
  service.free();
  console.log(`node smoke test passed: ${r.quotes.length} quotes, cheapest ${Math.min(...r.quotes.map((q) => q.totalAmount))} USD; a booking told ${told.length - 1} events`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
