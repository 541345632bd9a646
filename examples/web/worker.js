// Runs consign in a dedicated worker: the OPFS VFS that keeps the database across page
// loads needs synchronous file access handles, which browsers give only to workers.
// The page calls package methods by name: {id, op, args} -> {id, value} or {id, error}.
import init, { Shipping } from "./pkg/consign_wasm.js";

const DB_NAME = "consign-demo";
// Each commit's events are posted here; the page (every tab of it) refreshes from them.
const CHANNEL = "consign-demo-events";
let shipping;
let storage;

async function open(bytes) {
  try {
    shipping = await Shipping.openPersistent(DB_NAME, bytes ? { bytes, channel: CHANNEL } : { channel: CHANNEL });
    storage = "kept in this browser (OPFS)";
  } catch (e) {
    // No OPFS (an old browser, a private window, or the page already open in another
    // tab, which holds the files): the database lives in memory.
    console.warn("consign: no persistent storage, using memory:", e.message);
    shipping = bytes ? Shipping.fromBytes(bytes, { channel: CHANNEL }) : new Shipping({ channel: CHANNEL });
    storage = "in memory only (the browser's private file system is unavailable or in use by another tab)";
  }
}

const ready = init().then(() => open());

// Operations of the worker itself, beside the package's methods.
const own = {
  storage: () => storage,
  async importDatabase(bytes) {
    shipping.free(); // closes the database so that the import can replace it
    await open(bytes);
    return storage;
  },
};

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    await ready;
    const value = op in own ? await own[op](...args) : shipping[op](...args);
    self.postMessage({ id, value });
  } catch (e) {
    self.postMessage({ id, error: { message: e.message, status: e.status, errorCategory: e.errorCategory, details: e.details } });
  }
};
