// Webhooks: registering, a signed delivery to a receiver in the test,
// verifyWebhook on it, rotation and deletion, against a real `recollect
// run`; and verifyWebhook on a fixed vector made with the Go client's logic.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";

import { Recollect, NotFoundError, WebhookVerificationError, verifyWebhook } from "../dist/index.js";
import { startServer, eventually, KEYS } from "./server.mjs";

// Made with pkg/client.VerifyWebhook's HMAC: the Standard Webhooks example
// secret, id and timestamp.
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LKLtQZ8s0eF+C8AvM=";
const VECTOR = {
  "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
  "webhook-timestamp": "1614265330",
  "webhook-signature": "v1,bm9wZQ== v1,rSEZPOUkDyYkwvi3bMJHaYHJiR/O8sVElhcEGP0dJ1o=",
};
const BODY = '{"test": 2432232314}';
const at = (s) => new Date(s * 1000);
const SENT = 1614265330;

test("verifyWebhook on a fixed vector", async () => {
  await verifyWebhook(SECRET, VECTOR, BODY, { now: at(SENT) });
  await verifyWebhook(SECRET, new Headers(VECTOR), new TextEncoder().encode(BODY), { now: at(SENT + 300) });
  const upper = Object.fromEntries(Object.entries(VECTOR).map(([k, v]) => [k.toUpperCase(), [v]]));
  await verifyWebhook(SECRET, upper, BODY, { now: at(SENT - 300) });
  const fails = (p, re) => assert.rejects(p, (e) => e instanceof WebhookVerificationError && re.test(e.message));
  await fails(verifyWebhook(SECRET, VECTOR, BODY, { now: at(SENT + 301) }), /tolerance/);
  await fails(verifyWebhook(SECRET, VECTOR, BODY, { now: at(SENT - 301) }), /tolerance/);
  await verifyWebhook(SECRET, VECTOR, BODY, { now: at(SENT + 301), toleranceS: 3600 });
  await fails(verifyWebhook(SECRET, VECTOR, BODY + " ", { now: at(SENT) }), /no v1 signature/);
  await fails(verifyWebhook("whsec_" + "A".repeat(43) + "=", VECTOR, BODY, { now: at(SENT) }), /no v1 signature/);
  await fails(verifyWebhook(SECRET, { ...VECTOR, "webhook-signature": VECTOR["webhook-signature"].replaceAll("v1,", "v2,") }, BODY, { now: at(SENT) }), /no v1 signature/);
  await fails(verifyWebhook(SECRET, { ...VECTOR, "webhook-id": undefined }, BODY, { now: at(SENT) }), /missing/);
  await assert.rejects(verifyWebhook("whsec_not base64!", VECTOR, BODY, { now: at(SENT) }), TypeError);
});

let server;
let receiver;
const got = []; // [headers, body] of every POST the receiver got

before(async () => {
  server = await startServer();
  receiver = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      got.push([req.headers, Buffer.concat(chunks)]);
      res.writeHead(204).end();
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
});
after(async () => {
  await new Promise((r) => receiver?.close(r));
  await server?.stop();
});

function storedDelivery(memoryId) {
  for (const [h, body] of got) {
    const ev = JSON.parse(body.toString("utf8"));
    if (ev.type === "memory.stored" && ev.data.id === memoryId) return [h, body];
  }
  throw new Error(`no memory.stored of ${memoryId} among ${got.length} deliveries`);
}

test("a webhook gets a signed memory.stored; rotate and delete", async () => {
  const url = `http://127.0.0.1:${receiver.address().port}/hooks`;
  const rc = new Recollect({ baseURL: server.url, apiKey: KEYS.globex, namespace: "hooks" });
  const wh = await rc.createWebhook(url, { types: ["memory.stored"], description: "ts sdk" });
  assert.ok(wh.id && wh.secret?.startsWith("whsec_"));
  assert.deepEqual([wh.tenant, wh.url, wh.types, wh.description], ["globex", url, ["memory.stored"], "ts sdk"]);
  const listed = await rc.webhooks();
  assert.deepEqual(listed.map((w) => w.id), [wh.id]);
  assert.ok(!listed[0].secret);
  const acme = new Recollect({ baseURL: server.url, apiKey: KEYS.acme });
  assert.deepEqual(await acme.webhooks(), []);

  const learned = await rc.learn("The release train leaves every other Thursday", { wait: true });
  let [headers, body] = await eventually("memory.stored delivered", () => storedDelivery(learned.memory_id));
  await verifyWebhook(wh.secret, headers, body);
  const ev = JSON.parse(body.toString("utf8"));
  assert.equal(ev.data.tenant, "globex");
  assert.match(ev.data.memory.content, /release train/);
  const tampered = Buffer.from(body.toString("utf8").replace("release train", "release trail"));
  assert.notDeepEqual(tampered, body);
  await assert.rejects(verifyWebhook(wh.secret, headers, tampered), WebhookVerificationError);

  const rotated = await rc.rotateWebhookSecret(wh.id);
  assert.equal(rotated.id, wh.id);
  assert.ok(rotated.secret?.startsWith("whsec_") && rotated.secret !== wh.secret);
  // Signed with both during the grace.
  const again = await rc.learn("The release train is paused in December", { wait: true });
  [headers, body] = await eventually("memory.stored after rotation", () => storedDelivery(again.memory_id));
  await verifyWebhook(rotated.secret, headers, body);
  await verifyWebhook(wh.secret, headers, body);

  await rc.deleteWebhook(wh.id);
  assert.deepEqual(await rc.webhooks(), []);
  await assert.rejects(rc.deleteWebhook(wh.id), NotFoundError);
  await assert.rejects(rc.rotateWebhookSecret(wh.id), NotFoundError);
});
