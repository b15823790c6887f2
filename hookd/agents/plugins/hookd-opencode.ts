/**
 * hookd-opencode: an OpenCode or Kilo CLI plugin that forwards the agent's hooks to the warm
 * hookd daemon, the TypeScript twin of the command shim hookd/agents/hookd-agent.sh.
 *
 * One file serves both CLIs (Kilo CLI is a fork of OpenCode with the same plugin API):
 * SETTINGS.agent, which `hookd install --agent opencode|kilo` fills in, says which; left empty,
 * the folder decides (a `plugins` folder inside `.kilo`, `.kilocode` or `kilo`: Kilo CLI).
 * Each CLI loads it with no prompt from <project>/.opencode/plugins/ or ~/.config/opencode/
 * plugins/ (Kilo CLI: .kilo/plugins/, ~/.config/kilo/plugins/). It runs inside the CLI's own
 * process (Bun); only node:fs, node:net and node:child_process are used, nothing from npm.
 *
 * Each event of SETTINGS.routes is POSTed as JSON to http://127.0.0.1:PORT/agent/AGENT/EVENT,
 * EVENT the CLI's own hook or bus event name; hookd's `opencode` dialect (hookd/agents/
 * opencode.py) decodes it. OpenCode's tool and argument names are kept:
 *
 *   {"hook_event_name": EVENT, "session_id": "ses_...", "cwd": "<the project directory>",
 *    "agent": "opencode" | "kilo",
 *    tool.execute.before: "tool_name": "bash", "tool_input": {<args>}, "tool_use_id": "<callID>"
 *    tool.execute.after:  the same, and "tool_response": "<the text the model will see>"
 *    chat.message: "prompt": "<text parts>";  session.created: "source": "startup";
 *    session.idle: "stop_hook_active": false}
 *
 * The answer (status 200, the x-hookd-exit header, a body of Content-Length bytes): on exit 0
 * a JSON object (or nothing: go on), read as
 *
 *   {"decision": "deny", "reason": R}     tool.execute.before: throw R (the tool does not run;
 *                                         R is the tool result the model sees)
 *   {"decision": "allow", "updatedInput": A}   the call's args become A (changed in place)
 *   {"decision": "block", "reason": R}    chat.message: throw R (the prompt is not sent);
 *                                         tool.execute.after: R is added to the tool's output
 *   {"context": C}                        for the model: after the tool's output, or a text
 *                                         part of the (session's first) prompt
 *
 * and on another exit one line of text: exit 2 is thrown on a blocking event (the daemon's own
 * "no"), exit 1 goes to the CLI's log.
 *
 * Who it talks to: only the daemon of READY_FILE, proven as the shim proves it: the file
 * (0600, in this user's 0700 runtime directory) is ours and names PORT, a pid and its start
 * time (field 22 of /proc/PID/stat); that process is ours, alive, started then. The daemon
 * removes the file before it lets go of the port, so that process holds the port. The proof
 * is checked before connecting and again once connected; nothing is sent without it. The token
 * is read from TOKEN_FILE at each call, never kept here nor put on a command line. With HOOKD
 * and MODULE, a daemon not proven is asked for, once at a time (`HOOKD up MODULE --port PORT
 * --quiet`), and the proof checked again with the token read anew.
 *
 * Each route's deadline covers the exchange from the proof on (after any `hookd up`, which has
 * START_S): connect, request, the whole answer. When no usable answer comes (no daemon, none
 * proven, late, cut short, refused, garbage) a closed route of a blocking event
 * (tool.execute.before, chat.message) throws "hookd: <why>": the CLI does not run it.
 * SETTINGS.failOpen lets such a call go on instead (and logs why).
 */
import { execFile } from "node:child_process"
import { lstatSync, readFileSync, statSync } from "node:fs"
import { connect, type Socket } from "node:net"

type Route = { deadline: number; closed: boolean }
type Settings = {
  agent: string
  key: string
  port: number
  tokenFile: string
  readyFile: string
  hookd: string
  module: string
  failOpen: boolean
  routes: Record<string, Route>
}

// The one line `hookd install --agent opencode|kilo` writes (hookd.agents.plugin_settings); as
// shipped it names no daemon, so every tool call is refused until it is installed. routes: each
// event forwarded, its deadline in seconds and whether no answer blocks it (closed).
// prettier-ignore
const SETTINGS: Settings = {"agent": "", "key": "", "port": 0, "tokenFile": "", "readyFile": "", "hookd": "", "module": "", "failOpen": false, "routes": {"tool.execute.before": {"deadline": 55, "closed": true}}}; // hookd:settings

const { port: PORT, tokenFile: TOKEN_FILE, readyFile: READY_FILE, hookd: HOOKD, module: MODULE } = SETTINGS
const FAIL_OPEN = SETTINGS.failOpen
/** `hookd up`'s budget (hookd.daemon.settings.START_BUDGET_S). */
const START_S = 30

/** The events whose failure blocks the action (Claude's PreToolUse and UserPromptSubmit). */
const BLOCKING = new Set(["tool.execute.before", "chat.message"])
const HOST = "127.0.0.1"
/** An answer longer than this is garbage (the shim takes at most 9 digits of length). */
const MAX_BODY = 999_999_999

type Json = Record<string, unknown>
/** What the daemon answered: its exit code and the body's text. */
type Answer = { code: number; text: string }
type Proof = { text: string; pid: number; ticks: string }

class NoAnswer extends Error {}

function whoAmI(): string {
  if (SETTINGS.agent) return SETTINGS.agent
  let here = ""
  try {
    here = decodeURIComponent(new URL(import.meta.url).pathname)
  } catch {
    here = String((import.meta as { path?: string }).path ?? "")
  }
  return /\/(\.kilo|\.kilocode|kilo)\/plugins?\/[^/]+$/.test(here) ? "kilo" : "opencode"
}

const agent = whoAmI()
const uid = typeof process.geteuid === "function" ? process.geteuid() : -1

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return null
  }
}

/** Field 22 of /proc/PID/stat (the start time) when PID is a live process, else null. */
function startTicks(pid: number): string | null {
  const stat = read(`/proc/${pid}/stat`)
  if (stat === null) return null
  const fields = stat.slice(stat.lastIndexOf(")") + 1).trim().split(/\s+/)
  if (fields.length < 20 || fields[0] === "Z" || fields[0] === "X") return null
  return /^\d+$/.test(fields[19]) ? fields[19] : null
}

function owned(path: string, follow: boolean): boolean {
  try {
    const info = follow ? statSync(path) : lstatSync(path)
    return (follow || info.isFile()) && info.uid === uid
  } catch {
    return false
  }
}

/** The proof that READY_FILE names this user's live daemon on PORT; or throws why not. */
function prove(): Proof {
  if (!READY_FILE) throw new NoAnswer(`no ready file names the hookd daemon on ${HOST}:${PORT}`)
  const text = read(READY_FILE)
  if (text === null) throw new NoAnswer(`the hookd daemon is not running on ${HOST}:${PORT}`)
  const notOurs = `${READY_FILE} does not name this user's hookd daemon on port ${PORT}`
  if (!owned(READY_FILE, false)) throw new NoAnswer(notOurs)
  let ready: Json
  try {
    ready = JSON.parse(text)
  } catch {
    throw new NoAnswer(notOurs)
  }
  const pid = ready.pid
  if (ready.port !== PORT || typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) {
    throw new NoAnswer(notOurs)
  }
  const ticks = ready.start_ticks
  if (typeof ticks !== "number" || !Number.isInteger(ticks)) {
    throw new NoAnswer(`${READY_FILE} gives no start time for pid ${pid} (a daemon of an older hookd: \`hookd down\` stops it)`)
  }
  if (!owned(`/proc/${pid}`, true) || startTicks(pid) !== String(ticks)) {
    throw new NoAnswer(`the hookd daemon of ${READY_FILE} (pid ${pid}) is not running; port ${PORT} may be another program's`)
  }
  return { text, pid, ticks: String(ticks) }
}

/** Whether what prove found still holds: the same ready file, the same live process. */
function still(proof: Proof): boolean {
  return read(READY_FILE) === proof.text && startTicks(proof.pid) === proof.ticks
}

function token(): string {
  const line = (read(TOKEN_FILE) ?? "").split("\n", 1)[0].trim()
  if (!line) throw new NoAnswer(`cannot read the daemon's token from ${TOKEN_FILE}`)
  return line
}

/** A socket to the proven daemon: proven before, and the same daemon still there after. */
function open(proof: Proof, end: number, seconds: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: HOST, port: PORT })
    const timer = setTimeout(() => fail(`no answer from the hookd daemon within ${seconds}s`), Math.max(0, end - Date.now()))
    function fail(why: string) {
      clearTimeout(timer)
      socket.destroy()
      reject(new NoAnswer(why))
    }
    socket.once("error", () => fail(`the hookd daemon of ${READY_FILE} (pid ${proof.pid}) takes no connection on port ${PORT}`))
    socket.once("connect", () => {
      clearTimeout(timer)
      socket.removeAllListeners("error")
      socket.on("error", () => {}) // from here on, exchange reads a failure as a short answer
      if (!still(proof)) {
        socket.destroy()
        reject(new NoAnswer(`the hookd daemon of ${READY_FILE} went away`))
        return
      }
      resolve(socket)
    })
  })
}

/** One POST of body to the proven daemon; the whole answer within the deadline, or throws. */
function exchange(socket: Socket, path: string, secret: string, body: string, end: number, seconds: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const late = `no whole answer from the hookd daemon within ${seconds}s`
    const timer = setTimeout(() => done(new NoAnswer(late)), Math.max(0, end - Date.now()))
    function done(result: Answer | Error) {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      if (result instanceof Error) reject(result)
      else resolve(result)
    }
    function parse(final: boolean) {
      const all = Buffer.concat(chunks, size)
      const head = all.indexOf("\r\n\r\n")
      if (head < 0) {
        if (final) done(new NoAnswer(size ? "the hookd daemon's answer ended inside its head" : "the hookd daemon closed the connection without an answer"))
        return
      }
      const lines = all.subarray(0, head).toString("latin1").split("\r\n")
      if (!lines[0].startsWith("HTTP/1.1 200 ")) {
        done(new NoAnswer(`the hookd daemon refused the call: ${lines[0] || "no status line"}`))
        return
      }
      let code: number | null = null
      let length: number | null = null
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":")
        const name = line.slice(0, colon).toLowerCase()
        const value = line.slice(colon + 1).trim()
        if (name === "x-hookd-exit" && /^[012]$/.test(value)) code = Number(value)
        if (name === "content-length" && /^\d{1,9}$/.test(value)) length = Number(value)
      }
      if (code === null) return done(new NoAnswer("the hookd daemon answered garbage (no exit code)"))
      if (length === null || length > MAX_BODY) return done(new NoAnswer("the hookd daemon answered garbage (no Content-Length)"))
      const got = all.length - head - 4
      if (got >= length) {
        done({ code, text: all.subarray(head + 4, head + 4 + length).toString("utf8") })
      } else if (final) {
        done(new NoAnswer(`the hookd daemon's answer ended after ${got} of ${length} bytes`))
      }
    }
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      parse(false)
    })
    socket.once("end", () => parse(true))
    socket.once("close", () => parse(true))
    socket.on("error", () => parse(true))
    const payload = Buffer.from(body, "utf8")
    const recording = process.env.HOOKD_RECORD_ID // `hookd record`: the daemon records this session
    const request =
      `POST ${path} HTTP/1.1\r\nHost: ${HOST}\r\nAuthorization: Bearer ${secret}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n` +
      (recording && /^[\x21-\x7e]+$/.test(recording) ? `X-Hookd-Record: ${recording}\r\n` : "") +
      "\r\n"
    socket.write(Buffer.concat([Buffer.from(request, "latin1"), payload]), (err) => {
      if (err) done(new NoAnswer(`the hookd daemon on port ${PORT} closed the connection`))
    })
  })
}

let starting: Promise<void> | null = null

/** `HOOKD up MODULE --port PORT --quiet`, one at a time: throws its error's last line. */
function up(): Promise<void> {
  if (starting === null) {
    starting = new Promise<void>((resolve, reject) => {
      execFile(HOOKD, ["up", MODULE, "--port", String(PORT), "--quiet"], { timeout: START_S * 1000, encoding: "utf8" }, (err, _out, errText) => {
        let why = String(errText ?? "").trim()
        if (!why && err) why = err.killed ? `hookd up took more than ${START_S}s` : err.message
        if (why) {
          why = why.slice(why.lastIndexOf("\n") + 1).replace(/^hookd up: error: /, "")
          reject(new NoAnswer(`the hookd daemon is not running on ${HOST}:${PORT} and did not start: ${why}`))
        } else resolve()
      })
    }).finally(() => {
      starting = null
    })
  }
  return starting
}

/** The daemon's answer to one agent event; throws NoAnswer when there is none to use. */
async function ask(event: string, payload: Json, route: Route): Promise<Answer> {
  const body = JSON.stringify(payload)
  const path = `/agent/${agent}/${event}`
  const seconds = route.deadline
  let end = Date.now() + seconds * 1000
  let proof: Proof
  let socket: Socket
  try {
    proof = prove()
    socket = await open(proof, end, seconds)
  } catch (err) {
    if (!(err instanceof NoAnswer) || !HOOKD || !MODULE) throw err
    await up()
    end = Date.now() + seconds * 1000
    try {
      proof = prove()
      socket = await open(proof, end, seconds)
    } catch (again) {
      throw again instanceof NoAnswer ? new NoAnswer(`${again.message} (after \`hookd up\`)`) : again
    }
  }
  let secret: string
  try {
    secret = token() // read after the proof: a start makes a new one
  } catch (err) {
    socket.destroy()
    throw err
  }
  return exchange(socket, path, secret, body, end, seconds)
}

type Said = { decision?: string; reason?: string; updatedInput?: Json; context?: string }

/** The daemon's verdict for a call; null to go on. Throws (the agent's "no") when a blocking
 * event gets no usable answer and FAIL_OPEN is not set. */
async function verdict(event: string, payload: Json, log: (text: string) => void): Promise<Said | null> {
  const route = SETTINGS.routes[event]
  if (!route) return null
  const blocking = BLOCKING.has(event)
  const closed = blocking && route.closed && !FAIL_OPEN
  let answer: Answer
  try {
    answer = await ask(event, payload, route)
  } catch (err) {
    const why = `hookd: ${err instanceof Error ? err.message : String(err)}`
    if (closed) throw new Error(why)
    log(why)
    return null
  }
  if (answer.code !== 0) {
    const why = answer.text.trim() || `hookd: the daemon answered exit ${answer.code}`
    if (answer.code === 2 && blocking) throw new Error(why) // the daemon's own "no": obeyed
    log(why)
    return null
  }
  if (!answer.text.trim()) return null
  try {
    const said = JSON.parse(answer.text)
    if (said && typeof said === "object" && !Array.isArray(said)) return said as Said
  } catch {}
  const why = "hookd: the hookd daemon answered garbage (not a JSON object)"
  if (closed) throw new Error(why)
  log(why)
  return null
}

/** Replace the contents of target with those of source, in place (the CLI keeps target). */
function replaceInPlace(target: Json, source: Json) {
  for (const key of Object.keys(target)) delete target[key]
  Object.assign(target, source)
}

function promptText(parts: unknown): string {
  if (!Array.isArray(parts)) return ""
  return parts
    .filter((p) => p && p.type === "text" && typeof p.text === "string" && !p.synthetic)
    .map((p) => p.text)
    .join("\n")
}

export const HookdPlugin = async (ctx: { directory?: string; client?: any }) => {
  const cwd = ctx.directory ?? process.cwd()
  /** Text for the model held until it can be given: by tool call, and by session. */
  const afterCall = new Map<string, string>()
  const nextPrompt = new Map<string, string>()
  const log = (message: string) => {
    try {
      void ctx.client?.app?.log?.({ body: { service: "hookd", level: "warn", message } })?.catch?.(() => {})
    } catch {}
  }
  const base = (event: string, sessionID: unknown): Json => ({
    hook_event_name: event,
    session_id: typeof sessionID === "string" ? sessionID : "",
    cwd,
    agent,
  })

  return {
    "tool.execute.before": async (input: { tool: string; sessionID: string; callID: string }, output: { args: Json }) => {
      const event = "tool.execute.before"
      const said = await verdict(event, { ...base(event, input.sessionID), tool_name: input.tool, tool_input: output.args, tool_use_id: input.callID }, log)
      if (said === null) return
      if (said.decision === "deny") throw new Error(said.reason || "denied by a hookd hook")
      if (said.updatedInput && typeof said.updatedInput === "object" && output.args && typeof output.args === "object") {
        replaceInPlace(output.args, said.updatedInput)
      }
      if (said.context) afterCall.set(input.callID, said.context)
    },

    "tool.execute.after": async (input: { tool: string; sessionID: string; callID: string; args: Json }, output: { output?: unknown }) => {
      const event = "tool.execute.after"
      const notes: string[] = []
      const held = afterCall.get(input.callID)
      if (held !== undefined) {
        afterCall.delete(input.callID)
        notes.push(held)
      }
      const said = await verdict(event, { ...base(event, input.sessionID), tool_name: input.tool, tool_input: input.args, tool_use_id: input.callID, tool_response: typeof output.output === "string" ? output.output : "" }, log)
      if (said?.decision === "block" && said.reason) notes.push(said.reason)
      if (said?.context) notes.push(said.context)
      if (notes.length && typeof output.output === "string") output.output = [output.output, ...notes].join("\n\n")
    },

    "chat.message": async (input: { sessionID: string }, output: { message?: Json; parts?: Json[] }) => {
      const event = "chat.message"
      const notes: string[] = []
      const held = nextPrompt.get(input.sessionID)
      if (held !== undefined) {
        nextPrompt.delete(input.sessionID)
        notes.push(held)
      }
      const said = await verdict(event, { ...base(event, input.sessionID), prompt: promptText(output.parts) }, log)
      if (said?.decision === "block") throw new Error(said.reason || "blocked by a hookd hook")
      if (said?.context) notes.push(said.context)
      const first = Array.isArray(output.parts) ? output.parts[0] : undefined
      if (notes.length && first) {
        for (const [n, text] of notes.entries()) {
          output.parts!.push({ ...first, id: `${String(first.id)}hookd${n}`, type: "text", text, synthetic: true })
        }
      }
    },

    event: async ({ event }: { event: { type: string; properties?: Json } }) => {
      const sessionID = event.properties?.sessionID ?? (event.properties?.info as Json | undefined)?.id
      if (event.type === "session.created") {
        const said = await verdict(event.type, { ...base(event.type, sessionID), source: "startup" }, log)
        if (said?.context && typeof sessionID === "string") nextPrompt.set(sessionID, said.context)
      } else if (event.type === "session.idle") {
        await verdict(event.type, { ...base(event.type, sessionID), stop_hook_active: false }, log)
      } else if (event.type === "session.deleted") {
        await verdict(event.type, { ...base(event.type, sessionID), reason: "other" }, log)
      }
    },
  }
}
