// hookd-pi: pi's (@mariozechner/pi-coding-agent) events, forwarded to the warm hookd daemon.
//
// A pi extension (`hookd install --agent pi` writes it as .pi/extensions/hookd-KEY.ts, or into
// ~/.pi/agent/extensions/), loaded by pi with no prompt; Node built-ins only. It is the command
// shim (hookd/agents/hookd-agent.sh) inside pi: each event of SETTINGS.routes is POSTed as JSON
// to http://127.0.0.1:PORT/agent/pi/<pi event>, and the daemon's answer (status 200, the exit
// code in x-hookd-exit, a body of Content-Length bytes) is what pi obeys. hookd.agents.pi (its
// docstring has the tables) decodes the body, Claude's field names with pi's values:
// hook_event_name, session_id, transcript_path, cwd, model, and per event tool_name,
// tool_input, tool_use_id, tool_response {content, details, is_error}, prompt, source,
// stop_hook_active, last_assistant_message, reason. On exit 0 the answer is JSON: block,
// reason (a tool call blocked, the reason the model's tool result; a result made an error; a
// prompt not run; a follow-up prompt at agent_end), ask (a confirm where pi has a UI, else a
// block), input (the arguments, replaced in place), context (for the model, after the result
// or before the prompt), halt (a block, then ctx.abort()), systemMessage (shown). Exit 2 is a
// deny, exit 1 a note shown to the user.
//
// Who it talks to: only the daemon of SETTINGS.readyFile, proven as the shim proves it: the
// file is ours, names the port, a pid and its start time (field 22 of /proc/PID/stat), and
// that process is ours, alive and started then; checked before connecting and again once
// connected. The token is read from SETTINGS.tokenFile at each call, never kept here. With
// hookd and module, a daemon not proven is started (`hookd up MODULE --port PORT --quiet`,
// once at a time) and proven again. Each route's deadline covers the whole exchange. With no
// usable answer a closed route blocks (the model reads the one-line reason; a prompt is not
// run), an open one shows the line; failOpen opens every route. As shipped, SETTINGS names no
// daemon: every tool call is blocked until hookd installs this file.

import { execFile } from "node:child_process";
import { lstatSync, readFileSync, statSync } from "node:fs";
import { connect, type Socket } from "node:net";

type Route = { deadline: number; closed: boolean };
type Settings = { key: string; port: number; tokenFile: string; readyFile: string; hookd: string; module: string; failOpen: boolean; routes: Record<string, Route> };
type Json = Record<string, any>;
type Answer = { exit: number; body: string };
type Proof = { text: string; pid: number; ticks: string };

// prettier-ignore
const SETTINGS: Settings = {"key": "", "port": 0, "tokenFile": "", "readyFile": "", "hookd": "", "module": "", "failOpen": false, "routes": {"tool_call": {"deadline": 55, "closed": true}, "input": {"deadline": 55, "closed": true}}}; // hookd:settings

const HOST = "127.0.0.1";
const START_S = 30; // `hookd up`'s budget (hookd.daemon.settings.START_BUDGET_S)
const MAX_ANSWER = 1 << 24; // bytes: more is garbage
const RECORD_ENV = "HOOKD_RECORD_ID";
const RECORD_HEADER = "X-Hookd-Record";

class Failure extends Error {}

/** The proof that READY_FILE names this user's live daemon on PORT, or why there is none. */
function proven(): Proof | string {
	const { port, readyFile } = SETTINGS;
	if (!readyFile) return `no ready file names the hookd daemon on ${HOST}:${port}`;
	let text: string;
	try {
		const info = lstatSync(readyFile);
		if (!info.isFile() || info.uid !== process.getuid?.()) {
			return `${readyFile} does not name this user's hookd daemon on port ${port}`;
		}
		text = readFileSync(readyFile, "utf8");
	} catch {
		return `the hookd daemon is not running on ${HOST}:${port}`;
	}
	let ready: Json;
	try {
		ready = JSON.parse(text);
	} catch {
		return `${readyFile} does not name this user's hookd daemon on port ${port}`;
	}
	const pid = ready.pid;
	if (ready.port !== port || !Number.isSafeInteger(pid) || pid <= 0) {
		return `${readyFile} does not name this user's hookd daemon on port ${port}`;
	}
	const ticks = ready.start_ticks;
	if (!Number.isSafeInteger(ticks) || ticks < 0) {
		return `${readyFile} gives no start time for pid ${pid} (a daemon of an older hookd: \`hookd down\` stops it)`;
	}
	const proof = { text, pid, ticks: String(ticks) };
	if (!alive(proof)) {
		return `the hookd daemon of ${readyFile} (pid ${pid}) is not running; port ${port} may be another program's`;
	}
	return proof;
}

/** Whether the proof's pid is a live process of this user that started at its time. */
function alive(proof: Proof): boolean {
	try {
		if (statSync(`/proc/${proof.pid}`).uid !== process.getuid?.()) return false;
		const stat = readFileSync(`/proc/${proof.pid}/stat`, "latin1");
		// field 2, the name, may hold spaces and ")": the fields after it follow the last ")"
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return fields[0] !== "Z" && fields[0] !== "X" && fields[19] === proof.ticks;
	} catch {
		return false;
	}
}

/** Whether what proven() found still holds: the same ready file, the same live process. */
function still(proof: Proof): boolean {
	try {
		return readFileSync(SETTINGS.readyFile, "utf8") === proof.text && alive(proof);
	} catch {
		return false;
	}
}

let starting: Promise<string | null> | null = null;

/** `HOOKD up MODULE --port PORT --quiet`, one at a time: null once it says nothing, else why. */
function startDaemon(): Promise<string | null> {
	starting ??= new Promise<string | null>((resolve) => {
		const { hookd, module, port } = SETTINGS;
		const args = ["up", module, "--port", String(port), "--quiet"];
		execFile(hookd, args, { timeout: START_S * 1000, encoding: "utf8" }, (error, _out, err) => {
			const lines = String(err ?? "").trim().split("\n");
			const last = lines[lines.length - 1].replace(/^hookd up: error: /, "");
			if (last) resolve(last);
			else if (error) resolve(error.message.split("\n")[0]);
			else resolve(null);
		});
	}).finally(() => {
		starting = null;
	});
	return starting;
}

function readToken(): string {
	try {
		return readFileSync(SETTINGS.tokenFile, "utf8").split("\n")[0].trim();
	} catch {
		return "";
	}
}

/** A socket to the proven daemon (proven before connecting, and the same daemon after). */
function connected(proof: Proof, deadline: number, within: string): Promise<Socket> {
	return new Promise((resolve, reject) => {
		const socket = connect({ host: HOST, port: SETTINGS.port });
		const timer = setTimeout(() => {
			socket.destroy();
			reject(new Failure(within));
		}, remaining(deadline));
		socket.once("error", () => {
			clearTimeout(timer);
			reject(new Failure(`the hookd daemon of ${SETTINGS.readyFile} (pid ${proof.pid}) takes no connection on port ${SETTINGS.port}`));
		});
		socket.once("connect", () => {
			clearTimeout(timer);
			if (still(proof)) return resolve(socket);
			socket.destroy();
			reject(new Failure(`the hookd daemon of ${SETTINGS.readyFile} went away`));
		});
	});
}

function remaining(deadline: number): number {
	return Math.max(0, deadline - Date.now());
}

/** POST the body to the proven daemon; its exit code and body, or a Failure. */
async function post(event: string, body: string, route: Route): Promise<Answer> {
	const { port, hookd, module } = SETTINGS;
	let token = readToken();
	if (!token && !module) throw new Failure(`cannot read the daemon's token from ${SETTINGS.tokenFile}`);
	let proof = proven();
	if (typeof proof === "string") {
		if (!hookd || !module) throw new Failure(proof);
		const why = await startDaemon();
		if (why !== null) {
			throw new Failure(`the hookd daemon is not running on ${HOST}:${port} and did not start: ${why}`);
		}
		proof = proven();
		if (typeof proof === "string") throw new Failure(`${proof} (after \`hookd up\`)`);
		token = readToken(); // a start makes a new one
	}
	if (!token) throw new Failure(`cannot read the daemon's token from ${SETTINGS.tokenFile}`);
	if (!/^[\x21-\x7e]+$/.test(token)) throw new Failure(`the token in ${SETTINGS.tokenFile} is not one word`);
	const deadline = Date.now() + route.deadline * 1000;
	const within = `no whole answer from the hookd daemon within ${route.deadline}s`;
	const socket = await connected(proof, deadline, within);
	const data = Buffer.from(body, "utf8");
	const recording = process.env[RECORD_ENV];
	const head =
		`POST /agent/pi/${event} HTTP/1.1\r\nHost: ${HOST}\r\nAuthorization: Bearer ${token}\r\n` +
		`Content-Type: application/json\r\nContent-Length: ${data.length}\r\nConnection: close\r\n` +
		(recording && /^[\x21-\x7e]+$/.test(recording) ? `${RECORD_HEADER}: ${recording}\r\n` : "") +
		"\r\n";
	return await new Promise<Answer>((resolve, reject) => {
		let settled = false;
		let got = Buffer.alloc(0);
		let need = -1; // the head's length plus Content-Length, once the head is in
		let code = -1;
		const done = (why: string | null) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			socket.destroy();
			if (why !== null) return reject(new Failure(why));
			const start = got.indexOf("\r\n\r\n") + 4;
			resolve({ exit: code, body: got.subarray(start, need).toString("utf8") });
		};
		const timer = setTimeout(() => done(within), remaining(deadline));
		socket.on("data", (chunk: Buffer) => {
			got = Buffer.concat([got, chunk]);
			if (need < 0) {
				const end = got.indexOf("\r\n\r\n");
				if (end < 0) {
					if (got.length > 65536) done("the hookd daemon answered garbage (no end of its head)");
					return;
				}
				const why = readHead(got.subarray(0, end).toString("latin1"));
				if (typeof why === "string") return done(why);
				code = why.code;
				need = end + 4 + why.length;
			}
			if (got.length > need) return done(`the hookd daemon's answer ran past its ${need} bytes`);
			if (got.length === need) done(null);
		});
		socket.on("end", () => {
			if (need < 0) return done("the hookd daemon closed the connection without an answer");
			const start = got.indexOf("\r\n\r\n") + 4;
			done(`the hookd daemon's answer ended after ${got.length - start} of ${need - start} bytes`);
		});
		socket.on("error", () => done("the hookd daemon closed the connection without an answer"));
		socket.write(Buffer.concat([Buffer.from(head, "latin1"), data]), (error) => {
			if (error) done(`the hookd daemon on port ${port} closed the connection`);
		});
	});
}

/** The exit code and body length of an answer's head, or why it is no answer. */
function readHead(head: string): { code: number; length: number } | string {
	const lines = head.split("\r\n");
	if (!lines[0].startsWith("HTTP/1.1 200 ")) {
		return `the hookd daemon refused the call: ${lines[0] || "no status line"}`;
	}
	let code = "";
	let length = "";
	for (const line of lines.slice(1)) {
		const colon = line.indexOf(":");
		const name = line.slice(0, colon).toLowerCase();
		if (name === "x-hookd-exit") code = line.slice(colon + 1).trim();
		else if (name === "content-length") length = line.slice(colon + 1).trim();
	}
	if (!/^[012]$/.test(code)) return "the hookd daemon answered garbage (no exit code)";
	if (!/^[0-9]{1,9}$/.test(length) || Number(length) > MAX_ANSWER) {
		return "the hookd daemon answered garbage (no Content-Length)";
	}
	return { code: Number(code), length: Number(length) };
}

/** What hookd said: {answer} on exit 0, {deny} on exit 2, {note} on exit 1, {failed} otherwise. */
type Outcome = { answer: Json } | { deny: string } | { note: string } | { failed: string };

async function ask(event: string, body: Json): Promise<Outcome | null> {
	const route = SETTINGS.routes[event];
	if (!route) return null;
	try {
		const got = await post(event, JSON.stringify({ hook_event_name: event, ...body }), route);
		const text = got.body.replace(/\n$/, "");
		if (got.exit === 2) return { deny: text || "hookd: denied" };
		if (got.exit === 1) return { note: text };
		if (!text.trim()) return { answer: {} };
		const answer = JSON.parse(text);
		if (answer === null || typeof answer !== "object" || Array.isArray(answer)) {
			return { failed: "hookd: the hookd daemon answered garbage (not a JSON object)" };
		}
		return { answer };
	} catch (error) {
		const why = error instanceof Failure ? error.message : `the call to the hookd daemon failed: ${String(error)}`;
		return { failed: `hookd: ${why.split("\n")[0]}` };
	}
}

/** The answer of an exit 0 (its systemMessage shown); any other outcome is only shown. */
function answerOf(ctx: any, got: Outcome): Json | null {
	if ("answer" in got) {
		show(ctx, got.answer.systemMessage);
		return got.answer;
	}
	show(ctx, "failed" in got ? got.failed : "note" in got ? got.note : got.deny);
	return null;
}

function closed(event: string): boolean {
	return !SETTINGS.failOpen && SETTINGS.routes[event]?.closed === true;
}

function show(ctx: any, text: string | undefined): void {
	if (!text) return;
	try {
		if (ctx?.hasUI) return ctx.ui.notify(text, "warning");
	} catch {
		// a ctx used after pi replaced or ended its session throws
	}
	process.stderr.write(`${text}\n`);
}

function base(ctx: any): Json {
	const sessions = ctx?.sessionManager;
	const safe = (f: () => any, fallback: any) => {
		try {
			return f() ?? fallback;
		} catch {
			return fallback;
		}
	};
	return {
		session_id: safe(() => sessions.getSessionId(), ""),
		transcript_path: safe(() => sessions.getSessionFile(), ""),
		cwd: ctx?.cwd ?? process.cwd(),
		model: safe(() => ctx.model.id, undefined),
	};
}

function lastText(messages: any[]): string | undefined {
	for (let i = (messages?.length ?? 0) - 1; i >= 0; i--) {
		const m = messages[i];
		if (m?.role !== "assistant") continue;
		const parts = Array.isArray(m.content) ? m.content : [];
		const text = parts.filter((p: any) => p?.type === "text").map((p: any) => p.text).join("");
		if (text) return text;
	}
	return undefined;
}

/** Replace the tool's arguments in place: pi runs the object it handed out. */
function rewrite(input: Json, updated: Json): void {
	for (const key of Object.keys(input)) if (!(key in updated)) delete input[key];
	Object.assign(input, updated);
}

export default function hookdPi(pi: any): void {
	const toolContext = new Map<string, string[]>(); // toolCallId -> text after its result
	let promptContext: string[] = []; // messages for the model before the next prompt
	let continuing = false; // this extension asked pi to go on after agent_end

	pi.on("tool_call", async (event: any, ctx: any) => {
		const body = { ...base(ctx), tool_name: event.toolName, tool_input: event.input, tool_use_id: event.toolCallId };
		const got = await ask("tool_call", body);
		if (got === null) return undefined;
		if ("failed" in got) {
			if (closed("tool_call")) return { block: true, reason: got.failed };
			show(ctx, got.failed);
			return undefined;
		}
		if ("deny" in got) return { block: true, reason: got.deny };
		if ("note" in got) {
			show(ctx, got.note);
			return undefined;
		}
		const a = got.answer;
		show(ctx, a.systemMessage);
		if (a.halt || a.block) {
			if (a.halt) ctx.abort?.();
			return { block: true, reason: String(a.reason || "denied by a hookd hook") };
		}
		if (a.ask) {
			const reason = String(a.reason || "a hookd hook asks for the user's approval");
			if (!ctx.hasUI) return { block: true, reason: `this call needs the user's approval, which pi cannot ask for here: ${reason}` };
			const ok = await ctx.ui.confirm("hookd", reason);
			if (!ok) return { block: true, reason: `the user refused: ${reason}` };
		}
		if (a.input && typeof a.input === "object" && !Array.isArray(a.input)) rewrite(event.input, a.input);
		if (typeof a.context === "string" && a.context) toolContext.set(event.toolCallId, [a.context]);
		return undefined;
	});

	pi.on("tool_result", async (event: any, ctx: any) => {
		const texts = toolContext.get(event.toolCallId) ?? [];
		toolContext.delete(event.toolCallId);
		let isError: boolean | undefined;
		const response = { content: event.content, details: event.details, is_error: event.isError };
		const got = await ask("tool_result", { ...base(ctx), tool_name: event.toolName, tool_input: event.input, tool_use_id: event.toolCallId, tool_response: response });
		const a = got === null ? null : answerOf(ctx, got);
		if (a !== null) {
			if (typeof a.context === "string" && a.context) texts.push(a.context);
			if (a.block || a.halt) {
				texts.push(String(a.reason || "a hookd hook objected to this result"));
				isError = true;
			}
			if (a.halt) ctx.abort?.();
		}
		if (!texts.length && isError === undefined) return undefined;
		const content = [...(event.content ?? []), ...texts.map((text) => ({ type: "text", text }))];
		return isError === undefined ? { content } : { content, isError };
	});

	pi.on("input", async (event: any, ctx: any) => {
		const got = await ask("input", { ...base(ctx), prompt: event.text, source: event.source });
		if (got === null) return undefined;
		const refuse = (why: string) => {
			show(ctx, why);
			return { action: "handled" };
		};
		if ("failed" in got) return closed("input") ? refuse(got.failed) : (show(ctx, got.failed), undefined);
		if ("deny" in got) return refuse(got.deny);
		if ("note" in got) return (show(ctx, got.note), undefined);
		const a = got.answer;
		show(ctx, a.systemMessage);
		if (a.block || a.halt) return refuse(`hookd: ${String(a.reason || "the prompt was refused by a hookd hook")}`);
		if (typeof a.context === "string" && a.context) promptContext.push(a.context);
		return undefined;
	});

	pi.on("before_agent_start", async () => {
		if (!promptContext.length) return undefined;
		const content = promptContext.join("\n\n");
		promptContext = [];
		return { message: { customType: "hookd", content, display: false } };
	});

	pi.on("agent_end", async (event: any, ctx: any) => {
		const active = continuing;
		continuing = false;
		const got = await ask("agent_end", { ...base(ctx), stop_hook_active: active, last_assistant_message: lastText(event.messages) });
		const a = got === null ? null : answerOf(ctx, got);
		if (a?.block && !a.halt && a.reason) {
			// pi does not wait for agent_end's handlers: `pi -p` may have torn the session down
			// by now (a stale ctx throws), and then there is no one to go on
			try {
				pi.sendUserMessage(String(a.reason), { deliverAs: "followUp" });
				continuing = true;
			} catch {
				show(ctx, `hookd: pi ended before it could go on: ${String(a.reason)}`);
			}
		}
	});

	pi.on("session_start", async (event: any, ctx: any) => {
		const got = await ask("session_start", { ...base(ctx), source: event.reason });
		const a = got === null ? null : answerOf(ctx, got);
		if (typeof a?.context === "string" && a.context) promptContext.push(a.context);
	});

	pi.on("session_shutdown", async (event: any, ctx: any) => {
		const got = await ask("session_shutdown", { ...base(ctx), reason: event.reason });
		if (got !== null) answerOf(ctx, got);
	});
}
