// Package mcpserver serves Recollect's memory as Model Context Protocol
// tools (memory_learn, memory_recall, memory_episode, memory_procedure,
// memory_stats, memory_consolidate, memory_resume, memory_topic,
// memory_forget) on top of the HTTP API client, so the same server works as
// a local stdio bridge to a running Recollect (`recollect mcp`) and inside
// the query service over streamable HTTP (Handler, mounted at /mcp).
//
// Every tool has a JSON-schema'd typed input and answers with text for the
// model plus structured output.
//
// Tenancy follows the HTTP API: tools never name a tenant. Over stdio the
// tenant and namespace are the client's (WithTenant, WithNamespace). Over
// HTTP a request may choose them with the headers Recollect-Tenant and
// Recollect-Namespace or the endpoint's query (/mcp?tenant=acme&namespace=proj),
// which only matter when the server has no API keys; a bearer key in the MCP
// request's Authorization header is forwarded to the API, so with keys the
// key's tenant applies, as for any other API call. Tools may pick a
// namespace (a project) per call.
package mcpserver
