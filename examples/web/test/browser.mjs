// Drives the page in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core): quote, check the table is sorted by price, book the cheapest, check
// the tracking number and the PDF label, reload and find the shipment again (OPFS),
// export the database. Serves the page with `python3 -m http.server`, as a person would.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, "..");
// Screenshots: $SCREENSHOTS (default target/), web-quotes.png and web-booked.png.
const shots = process.env.SCREENSHOTS ?? resolve(web, "../../target");
const port = 8100 + Math.floor(Math.random() * 800);

const server = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1"], { cwd: web, stdio: ["ignore", "pipe", "pipe"] });
const profile = mkdtempSync(join(tmpdir(), "consign-chromium-"));
let context;
try {
  await waitForServer(`http://127.0.0.1:${port}/index.html`);
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));

  await page.goto(`http://localhost:${port}/index.html`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  assert.match(await page.textContent("#storage"), /OPFS/, "the database is kept in OPFS");
  assert.equal(await page.textContent("#history tbody"), "None yet.");

  // A shipment on a weekday two weeks ahead, so no weekend or holiday rule interferes.
  const date = new Date(Date.now() + 14 * 86400_000);
  while ([0, 6].includes(date.getDay())) date.setDate(date.getDate() + 1);
  await page.fill("input[name=receiverName]", "Cy Park");
  await page.fill("input[name=receiverCity]", "Seattle");
  await page.fill("input[name=receiverState]", "WA");
  await page.fill("input[name=receiverZip]", "98101");
  await page.fill("input[name=weight]", "3.5");
  await page.fill("input[name=shipmentDate]", date.toLocaleDateString("sv"));
  await page.click("#quote");
  await page.waitForSelector("#quotes:not([hidden]) tbody tr, #status.error");
  assert.equal(await page.$("#status.error"), null, `quoting failed: ${await page.textContent("#status")}`);

  const rows = await page.$$eval("#quotes tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const prices = rows.map((r) => Number(r[5].replace(/[$,]/g, "")));
  assert.ok(rows.length >= 3, `quotes of several services, found ${rows.length}`);
  assert.deepEqual(prices, [...prices].sort((a, b) => a - b), "sorted by price");
  assert.ok(prices.every((p) => p > 0));
  const dates = await page.$$eval("#quotes tbody tr", (trs) => trs.map((tr) => tr.dataset.arrives));
  assert.ok(dates.every((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)), `every quote has an arrival date: ${dates}`);
  assert.ok(rows.every((r) => /\(\d+ days?(, guaranteed)?\)$/.test(r[6])), `an arrives column: ${rows.map((r) => r[6])}`);
  // sorted by arrival, then back by price
  await page.selectOption("#sortBy", "arrival");
  const byArrival = await page.$$eval("#quotes tbody tr", (trs) => trs.map((tr) => tr.dataset.arrives));
  assert.deepEqual(byArrival, [...dates].sort(), "sorted by arrival");
  assert.notDeepEqual(byArrival, dates, "the fastest services are not the cheapest");
  await page.selectOption("#sortBy", "price");
  const again = await page.$$eval("#quotes tbody tr", (trs) => trs.map((tr) => Number(tr.cells[5].textContent.replace(/[$,]/g, ""))));
  assert.deepEqual(again, prices, "sorted by price again");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, "web-quotes.png"), fullPage: true });
  console.log(`quotes: ${rows.length} services, ${rows[0][1]} ${rows[0][5]} to ${rows.at(-1)[1]} ${rows.at(-1)[5]}`);

  await page.click("#quotes tbody tr:first-child button");
  await page.waitForSelector("#booked:not([hidden]), #status.error");
  assert.equal(await page.$("#status.error"), null, `booking failed: ${await page.textContent("#status")}`);
  const tracking = (await page.textContent("#tracking")).trim();
  const bookNumber = (await page.textContent("#bookNumber")).trim();
  assert.match(tracking, /^[0-9A-Z]{10,}$/, "a tracking number");
  assert.equal((await page.textContent("#charged")).trim(), rows[0][5], "charged the quoted price");
  const label = await page.getAttribute("#label", "href");
  assert.match(label, /^blob:/);
  const head = await page.evaluate(async (href) => {
    const bytes = new Uint8Array(await (await fetch(href)).arrayBuffer());
    return { type: (await fetch(href)).headers.get("content-type"), start: String.fromCharCode(...bytes.slice(0, 5)), size: bytes.length };
  }, label);
  assert.equal(head.type, "application/pdf");
  assert.equal(head.start, "%PDF-");
  console.log(`booked ${bookNumber}, tracking ${tracking}, label ${head.size} bytes of PDF`);
  // The list refreshes from the booking's event, which the worker posts to the page.
  await page.waitForFunction((t) => [...document.querySelectorAll("#history tbody tr")].some((tr) => tr.cells[1]?.textContent === t),
    tracking, { timeout: 10_000 });
  const history = await page.$$eval("#history tbody tr", (trs) => trs.map((tr) => tr.cells[1].textContent));
  assert.deepEqual(history, [tracking]);
  await page.screenshot({ path: join(shots, "web-booked.png"), fullPage: true });

  // The label opens in a new tab.
  const [tab] = await Promise.all([context.waitForEvent("page"), page.click("#label")]);
  assert.equal(tab.url(), label);
  await tab.close();

  // A reload keeps the customer and the shipment (the database is in OPFS).
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  const afterReload = await page.$$eval("#history tbody tr", (trs) => trs.map((tr) => tr.cells[1].textContent));
  assert.deepEqual(afterReload, [tracking], "the shipment survives a reload");

  // Export gives the SQLite file.
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  const path = await download.path();
  const { readFileSync } = await import("node:fs");
  const bytes = readFileSync(path);
  assert.equal(bytes.subarray(0, 16).toString("latin1"), "SQLite format 3\0");
  console.log(`exported ${bytes.length} bytes of SQLite; reload kept the shipment`);

  // Fetches a Blob URL of the page: its type, first bytes and text (our PDFs keep their
  // streams uncompressed, so the words are in the file).
  const pdfAt = (href) => page.evaluate(async (href) => {
    const response = await fetch(href);
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { type: response.headers.get("content-type"), text: String.fromCharCode(...bytes) };
  }, href);

  // The day's labels in one PDF, on Letter sheets (the reload reset the form's date).
  await page.fill("input[name=shipmentDate]", date.toLocaleDateString("sv"));
  await page.selectOption("#dayLayout", "letter");
  await page.click("#printDay");
  await page.waitForSelector("#dayLabels:not([hidden]), #status.error");
  assert.equal(await page.$("#status.error"), null, `printing the day failed: ${await page.textContent("#status")}`);
  const day = await pdfAt(await page.getAttribute("#dayLabels", "href"));
  assert.equal(day.type, "application/pdf");
  assert.ok(day.text.startsWith("%PDF-") && day.text.includes("/MediaBox [0 0 612 792]") && day.text.includes(tracking), "a Letter sheet with the label");

  // Abroad: the booking carries a commercial invoice, and the page opens it.
  await page.selectOption("select[name=receiverCountry]", "GB");
  await page.fill("input[name=receiverCity]", "London");
  await page.fill("input[name=receiverState]", "");
  await page.fill("input[name=receiverZip]", "SW1A 1AA");
  await page.fill("input[name=weight]", "1.5");
  assert.equal(await page.isVisible("#customs"), true, "the contents of an international shipment are asked");
  await page.click("#quote");
  await page.waitForSelector("#quotes:not([hidden]) tbody tr, #status.error");
  assert.equal(await page.$("#status.error"), null, `quoting abroad failed: ${await page.textContent("#status")}`);
  await page.click("#quotes tbody tr:first-child button");
  await page.waitForSelector("#invoice:not([hidden]), #status.error");
  assert.equal(await page.$("#status.error"), null, `booking abroad failed: ${await page.textContent("#status")}`);
  const invoice = await pdfAt(await page.getAttribute("#invoice", "href"));
  assert.equal(invoice.type, "application/pdf");
  assert.ok(invoice.text.includes("COMMERCIAL INVOICE") && invoice.text.includes("Stoneware mug"), "the invoice of the shipment");
  await page.screenshot({ path: join(shots, "web-abroad.png"), fullPage: true });
  console.log(`printed the day's labels on Letter sheets (${day.text.length} bytes) and an invoice (${invoice.text.length} bytes)`);

  assert.deepEqual(problems, [], "no errors in the page");
  console.log(`browser test passed; screenshots: ${shots}/web-quotes.png, web-booked.png, web-abroad.png`);
} finally {
  await context?.close();
  server.kill();
  rmSync(profile, { recursive: true, force: true });
}

async function waitForServer(url) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the page server did not start at ${url}`);
}
