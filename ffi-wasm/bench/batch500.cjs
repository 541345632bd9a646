// The WASM side of the batch benchmark: the 500-shipment all-services batch quote of
// `cargo run --release -p consign-wasm --example batch500 -- --write FILE`, through the
// Node package (ffi-wasm/pkg/node, from scripts/build-wasm). Usage: node batch500.cjs FILE [RUNS]
//
// Three ways in: `handle` (JSON text in and out, as the native example times it: the
// like-for-like comparison), and `batchQuote` with JSON text or a JS object, whose answer
// is a JS object (the package parses the answer's JSON for the caller).
const { readFileSync } = require("node:fs");
const { resolve } = require("node:path");
const { Shipping } = require(resolve(__dirname, "../pkg/node/consign_wasm.js"));

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const runs = Number(process.argv[3] ?? 20);
const shipping = new Shipping({ now: input.now });
const { customerId } = shipping.createCustomer(input.customer);
const text = JSON.stringify({ shipments: input.shipments });
const object = { shipments: input.shipments };

function time(label, send) {
  const times = [];
  let quotes = 0;
  for (let i = 0; i < runs + 2; i++) {
    const start = process.hrtime.bigint();
    let answer = send();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (typeof answer.body === "string") {
      if (answer.status !== 200) throw new Error(`status ${answer.status}`);
      answer = JSON.parse(answer.body); // (untimed: checked below)
    }
    const { results } = answer;
    if (!results.every((r) => r.status === "success")) throw new Error("a shipment failed to quote");
    quotes = results.reduce((n, r) => n + r.quotes.length, 0);
  }
  times.splice(0, 2); // warm-up
  times.sort((a, b) => a - b);
  console.log(`wasm (node ${process.version}) batch500/all-services, ${label}: median ${times[times.length >> 1].toFixed(1)} ms, ` +
    `min ${times[0].toFixed(1)} ms over ${runs} runs (${quotes} quotes per batch)`);
}

const path = `/restapi/v1/customers/${customerId}/batch-quote`;
time("JSON text in and out (handle)", () => shipping.handle("POST", path, text));
time("JSON text in", () => shipping.batchQuote(customerId, text));
time("JS object in", () => shipping.batchQuote(customerId, object));
