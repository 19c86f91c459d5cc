// An A2A v0.3.0 server over HTTP on 127.0.0.1, built on the real A2A JavaScript SDK (@a2a-js/sdk 0.3.14, which
// "implements the A2A Protocol Specification v0.3", its README) with its Express integration, for the live tier
// (tools/wirecheck/harness/a2a_live.py). The executor is the README's "Streaming Task Updates" sample
// (README.md:492-550): a Task, a working status, an artifact, a completed status; everything on the wire, the Agent
// Card, the JSON-RPC answers and their Server-Sent Events, is the SDK's. The port comes from A2A_PORT.
import express from "express";
import { AGENT_CARD_PATH } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { A2AExpressApp } from "@a2a-js/sdk/server/express";

const port = Number(process.env.A2A_PORT);
const card = {
  name: "wirecheck live agent",
  description: "The A2A JS SDK's streaming sample, for wirecheck's live tier",
  protocolVersion: "0.3.0",
  version: "0.1.0",
  url: `http://127.0.0.1:${port}/`,
  skills: [{ id: "chat", name: "Chat", description: "Answers with one artifact", tags: ["chat"] }],
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text"],
  defaultOutputModes: ["text"],
};

class StreamingExecutor {
  async execute(requestContext, eventBus) {
    const { taskId, contextId, userMessage, task } = requestContext;
    if (!task) {
      eventBus.publish({ kind: "task", id: taskId, contextId, status: { state: "submitted",
        timestamp: new Date().toISOString() }, history: [userMessage] });
    }
    eventBus.publish({ kind: "status-update", taskId, contextId,
      status: { state: "working", timestamp: new Date().toISOString() }, final: false });
    await new Promise((resolve) => setTimeout(resolve, 100));
    eventBus.publish({ kind: "artifact-update", taskId, contextId,
      artifact: { artifactId: "result.txt", parts: [{ kind: "text", text: "First result." }] } });
    eventBus.publish({ kind: "status-update", taskId, contextId,
      status: { state: "completed", timestamp: new Date().toISOString() }, final: true });
    eventBus.finished();
  }
  cancelTask = async () => {};
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new StreamingExecutor());
const app = new A2AExpressApp(handler).setupRoutes(express());
app.listen(port, "127.0.0.1", () => console.error(`A2A server on 127.0.0.1:${port} (${AGENT_CARD_PATH})`));
