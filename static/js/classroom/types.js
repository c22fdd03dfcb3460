/**
 * The shapes of a class session's messages (docs/protocol.md, "Class sessions"), as the
 * class's modules read them: JSDoc types for the checker only. Nothing imports this
 * module at run time; a module names a type with
 * `@import { ClassInfo } from "./classroom/types.js"` in a comment.
 */

/**
 * Send a class message (`socket.message`): returns its ref, or null when nothing was sent.
 * @typedef {(type: string, fields?: Record<string, unknown>) => string | null} SendMessage
 */

/**
 * One member of the class, as a host's roster lists them.
 * @typedef {object} Member
 * @property {string} id
 * @property {string} name
 * @property {string} role "host" or "student"
 */

/**
 * One member waiting in the class's lobby (`lobby`, `class.lobby`).
 * @typedef {object} LobbyMember
 * @property {string} id
 * @property {string} name
 * @property {string} [since] when they came (ISO 8601)
 * @property {boolean} [flagged] from the network address of someone the host removed
 */

/**
 * Who drives the class (`control`, `class.control`).
 * @typedef {object} Control
 * @property {"host" | "everyone" | "student"} mode
 * @property {string | null} [driver] the driving student's member id (mode "student")
 * @property {string | null} [driver_name]
 * @property {number} [version]
 */

/**
 * The class's size and lobby switch (`door`, `class.door`: hosts only).
 * @typedef {object} Door
 * @property {number} size the most members present at once
 * @property {boolean} approval new students wait in the lobby for the host
 * @property {number} most the largest size the host may set
 * @property {number} version
 */

/**
 * How many chose one value of a revealed question.
 * @typedef {object} AnswerCount
 * @property {number} value a choice's index, or the number answered
 * @property {number} count
 */

/**
 * The class's current question, "Predict, then run" (`question`, `class.question`).
 * @typedef {object} Question
 * @property {number} number
 * @property {string} text
 * @property {"choice" | "number"} kind
 * @property {string[]} choices the choices of a "choice" question
 * @property {boolean} revealed
 * @property {number} [answered] hosts see it before the reveal, everyone after
 * @property {number} [voters] distinct members who answered (revealed)
 * @property {AnswerCount[]} [distribution] revealed: a row per value answered
 */

/**
 * A class on a hello or a role (`hello.class`, `role.class`); `members`, `lobby` and
 * `door` are a host's only.
 * @typedef {object} ClassInfo
 * @property {string} code
 * @property {string} join_path
 * @property {Control} control
 * @property {number} watching
 * @property {Question | null} question
 * @property {string | null} [tour] the tour step the host shows everyone
 * @property {Member[]} [members]
 * @property {LobbyMember[]} [lobby]
 * @property {Door} [door]
 */

/**
 * `approved` (the ids let in), `turned_away` (one id) and `cleared` (the ids removed): the
 * answers to a host's door messages.
 * @typedef {{type: "approved", ref?: string | null, members: string[]}
 *   | {type: "turned_away", ref?: string | null, member: string}
 *   | {type: "cleared", ref?: string | null, members: string[]}} DoorAnswer
 */

/**
 * `removed`: a member the host removed.
 * @typedef {{type: "removed", ref?: string | null, member: string}} Removed
 */

/**
 * The class messages the socket hands to classroom.js (`onClass`).
 * @typedef {{type: "class_started", ref?: string | null, room: string, code: string, secret: string,
 *     join_path: string, host_path: string}
 *   | {type: "branched", ref?: string | null, room: string, parent: string, seq?: number}
 *   | {type: "role", ref?: string | null, role: string, class?: ClassInfo}
 *   | ({type: "control"} & Control)
 *   | ({type: "question"} & Question)
 *   | {type: "answers", number: number, answered: number}
 *   | {type: "answered", ref?: string | null, question: number}
 *   | {type: "roster", watching?: number, members?: Member[]}
 *   | Removed
 *   | {type: "tour", step: string | null, version?: number}
 *   | {type: "waiting", reason?: string, name?: string, message?: string}
 *   | {type: "lobby", members?: LobbyMember[]}
 *   | ({type: "door"} & Door)
 *   | DoorAnswer} ClassMessage
 */

export {};
