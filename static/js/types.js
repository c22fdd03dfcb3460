/**
 * The shapes the browser modules share, as JSDoc types for the checker (`make jscheck`,
 * docs/frontend.md, "Checking the JavaScript"): the protocol's messages (docs/protocol.md)
 * and the renderer interface. Nothing imports this module at run time; a module names a
 * type with `@import { Hello } from "./types.js"` in a comment.
 */

// ---- the protocol (docs/protocol.md) --------------------------------------------------

/**
 * A lab's snapshot: lab-specific plain data. Labs on the clock add `playback` and
 * `network` (docs/frontend.md, "Labs on the virtual clock").
 * @typedef {{ playback?: Playback, [key: string]: any }} Snapshot
 */

/**
 * The clock of a lab that runs in time.
 * @typedef {object} Playback
 * @property {number} now_ms the lab's virtual now
 * @property {boolean} playing
 * @property {number} speed virtual milliseconds per real second
 * @property {number | null} [next_due_ms] when the next scheduled thing happens; null: nothing is
 */

/**
 * One value a `choice` parameter offers, with the JSON type it is sent as.
 * @typedef {object} Choice
 * @property {string | number | boolean | null} value
 * @property {string} label
 */

/**
 * What every parameter of a declared action has (docs/protocol.md, `hello`).
 * @typedef {object} ParamBase
 * @property {string} name
 * @property {string} label
 * @property {any} [default]
 * @property {string} [help]
 * @property {string} [current] a dotted path into the snapshot to the value in force now
 */

/**
 * An `int` parameter; `presets` are quick values offered as chips.
 * @typedef {ParamBase & {kind: "int", min?: number, max?: number, presets?: number[]}} IntParam
 */

/**
 * A `choice` parameter; `most` and `least`, dotted paths to the largest and the smallest
 * numeric choice possible now.
 * @typedef {ParamBase & {kind: "choice", choices: Choice[], most?: string, least?: string}} ChoiceParam
 */

/**
 * A `text` parameter; `source`, a key or dotted path of a snapshot list to offer.
 * @typedef {ParamBase & {kind: "text", max_length?: number, source?: string}} TextParam
 */

/** @typedef {ParamBase & {kind: "bool"}} BoolParam */

/** @typedef {IntParam | ChoiceParam | TextParam | BoolParam} Param */

/**
 * One action a lab declares. `group`: "" the panel (the quick bar when `primary`),
 * "timeline" the playback bar, "clock" sent by the room only, "drawing" done by clicking.
 * @typedef {object} Action
 * @property {string} name
 * @property {string} label
 * @property {Param[]} params
 * @property {"" | "timeline" | "clock" | "drawing"} [group]
 * @property {boolean} [primary]
 * @property {string} [help]
 */

/**
 * What a tour step points at: a control by its action, a node or a link of the network
 * drawing, or a spot ("stage", or an element marked `data-spot`).
 * @typedef {{action: string} | {node: string} | {link: string} | {spot: string}} TourTarget
 */

/**
 * One step of a lab's guided tour (docs/protocol.md, "The tour"; tour.js runs it).
 * @typedef {object} TourStep
 * @property {string} id a slug: links and class messages name the step by it
 * @property {string} say what to do
 * @property {string} notice what to notice once it is done
 * @property {TourTarget} target
 * @property {{ action: string, args: Record<string, unknown> }} show_me
 * @property {{ action?: string, event?: string, with?: Record<string, unknown> }} done_when
 * @property {TourTarget} [look] where to look once it is done
 */

/**
 * What a lab offers (hello's `declaration`).
 * @typedef {object} Declaration
 * @property {string} lab
 * @property {Action[]} actions
 * @property {unknown[]} [options]
 * @property {TourStep[]} [tour]
 * @property {Record<string, string>} [words] data words (city names) in the socket's language
 */

/**
 * A branch the room's history left behind (`timeline.forks`).
 * @typedef {object} Fork
 * @property {number} id
 * @property {number} at the position it was left at
 * @property {number} length
 * @property {number} [at_moment]
 * @property {number} [moments]
 */

/**
 * The room's history, on every hello and frame (docs/protocol.md, "The timeline and links").
 * @typedef {object} Timeline
 * @property {number} cursor
 * @property {number} length
 * @property {number[]} [moments] where each listed moment's action sits
 * @property {number} [moments_skipped]
 * @property {number} [moments_total]
 * @property {Fork[]} [forks]
 */

/**
 * One thing that happened, for animation and narration: `type` says which (lab-specific).
 * @typedef {{ type: string, [key: string]: any }} LabEvent
 */

/**
 * Everything needed to draw a lab from scratch.
 * @typedef {object} Hello
 * @property {"hello"} type
 * @property {string} room
 * @property {number} seq
 * @property {Declaration} declaration
 * @property {Snapshot} snapshot
 * @property {Record<string, any>} metrics
 * @property {Timeline} timeline
 * @property {number} [t_ms]
 * @property {number} [seed]
 * @property {string} [lab]
 * @property {string} [digest]
 * @property {string | null} [member] our member id in the room
 * @property {string} [role]
 * @property {string} [kind] "private" or "class"
 */

/**
 * One applied action, and the state after it.
 * @typedef {object} Frame
 * @property {"frame"} type
 * @property {number} seq
 * @property {string | null} ref ours only when `by` is our member id (socket.js)
 * @property {{ name: string, args: Record<string, unknown> }} action
 * @property {LabEvent[]} events
 * @property {Snapshot} snapshot
 * @property {Record<string, any>} metrics
 * @property {Timeline} timeline
 * @property {number} [t_ms]
 * @property {string | null} [by]
 * @property {string} [digest]
 * @property {unknown[]} [patch] the change since the frame before, instead of `snapshot`
 */

/**
 * A refusal: `ref` names the message it answers (null or missing: the server's own word).
 * @typedef {object} ServerError
 * @property {string} type "error"
 * @property {string} code
 * @property {string} [message]
 * @property {string} [field]
 * @property {string | null} [ref]
 */

/**
 * Send an action; returns the ref the server will echo, or null when nothing was sent.
 * @typedef {(action: string, args?: Record<string, unknown>) => string | null} Send
 */

// ---- the renderer interface (docs/frontend.md) ----------------------------------------

/**
 * What a renderer is given besides the stage.
 * @typedef {object} RendererSlots
 * @property {HTMLElement | null} metrics the element for lab-wide numbers
 * @property {HTMLElement | null} [side] the side panel, beside or under the stage, for
 *   what the lab tabulates (histories, copies, counters): the stage keeps the drawing
 * @property {boolean} [readOnly] a view that only shows (a read-only embed): offer no
 *   buttons of the renderer's own
 * @property {Send} send lets a click on the drawing act (the server validates it)
 * @property {(handler: (error: ServerError) => boolean) => void} onError a refused
 *   action that `send` sent goes to `handler`, which returns true when it showed it
 */

/**
 * One mounted lab view: draws a hello, animates frames, says what events mean.
 * @typedef {object} Renderer
 * @property {(el: HTMLElement, hello: Hello, slots: RendererSlots) => void} mount draw from scratch
 * @property {(frame: Frame) => void} update animate one frame
 * @property {(events: LabEvent[]) => string[]} describe translated sentences for the narrator
 * @property {() => void} destroy stop animations, remove what mount added
 */

/**
 * A lab's renderer module, static/js/labs/<slug>.js.
 * @typedef {object} RendererModule
 * @property {() => Renderer} createRenderer
 */

export {};
