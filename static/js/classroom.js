/**
 * The class session on a lab page: starting one, the host's panel, a student's view
 * (who drives, why their controls are off), "Predict, then run", and the private branch.
 *
 * lab-page.js owns the socket and the lab; this module is told about every hello, class
 * message, presence and error, and says through `onLock(reason)` whether this viewer's
 * controls are off (and why). Display names are only ever set as text.
 *
 * When the class is over for this page (the host removed this member, or the class
 * ended: the socket is closed for good) the class bar says so and offers the lab alone;
 * a class that had ended before the page came is said above the fresh lab it gets.
 */

import { fmt, num, sentence, t, tn } from "./i18n.js";
import { createClassBar } from "./classroom/bar.js";
import {
  askName,
  forgetHostSecret,
  forgetName,
  hostSecret,
  recall,
  remember,
  rememberHostSecret,
} from "./classroom/entry.js";
import { createHostPanel } from "./classroom/host.js";
import { leftTheClass } from "./classroom/notice.js";
import { createQuestionCard } from "./classroom/question.js";

/** @import { ClassInfo, ClassMessage } from "./classroom/types.js" */
/** @import { BarView } from "./classroom/bar.js" */
/** @import { Notice } from "./classroom/notice.js" */
/** @import { LabSocket } from "./socket.js" */
/** @import { Hello, ServerError } from "./types.js" */

/**
 * The page's parts a class uses: the class bar, the question card, the host's panel, the
 * "Start a class session" button and the display name form.
 * @typedef {object} ClassParts
 * @property {HTMLElement} bar
 * @property {HTMLElement} question
 * @property {HTMLElement} panel
 * @property {HTMLButtonElement} start
 * @property {HTMLFormElement} nameForm
 */

/**
 * What the page tells the class, and asks of it.
 * @typedef {object} Classroom
 * @property {(message: Hello & {class?: ClassInfo | null}) => void} hello
 * @property {(message: ClassMessage) => void} onMessage
 * @property {(message: {watching?: number}) => void} presence
 * @property {(refusal: {code: number, error: ServerError | null}) => boolean} refused
 * @property {() => string | null} lock
 * @property {(error: ServerError) => boolean} showError
 */

const CLASS_KEY = "playground:class-of-tab";
// The class is over for this socket (closed for good): 4410 when its hours ended.
const CLOSE_CLASS_ENDED = 4410;
// Errors without a ref that a hello (a fresh lab instead of the class) or a close follows.
const PARTING_CODES = new Set(["removed", "turned_away", "class_ended", "no_such_room"]);

/**
 * `socket`: the LabSocket; `parts`: {bar, question, panel, start, nameForm};
 * `onLock(reason | null)`; `showGeneralError(error)` for refusals that belong nowhere.
 * @param {LabSocket} socket
 * @param {ClassParts} parts
 * @param {{slug: string, onLock: (reason: string | null) => void,
 *   showGeneralError: (error: {message?: string, code?: string}) => void}} options
 * @returns {Classroom}
 */
export function createClassroom(socket, parts, { slug, onLock, showGeneralError }) {
  /** @type {Map<string | null | undefined, "start" | "branch" | "claim">} */
  const refs = new Map(); // ref → what it was ("start", "branch", "claim")
  let classRoom = recall(CLASS_KEY);
  /** @type {string | null} */
  let branchRoom = null; // the private branch this page is exploring, if any
  let kind = "private";
  let role = "owner";
  /** @type {string | null} */
  let me = null;
  /** @type {ClassInfo | null} */
  let info = null; // hello.class (code, control, question, watching, members)
  let watching = 0;
  /** @type {string | null} */
  let lock = null;
  /** @type {Notice | null} */
  let notice = null; // {kind, message}: the class is over for this page (classroom/notice.js)
  /** @type {ServerError | null} */
  let parting = null; // an error without a ref, explained by the hello or close after it
  let branchError = ""; // why "Explore on my own" was refused, shown beside it

  const questionCard = createQuestionCard(parts.question, send);
  const hostPanel = createHostPanel(parts.panel, send);
  const classBar = createClassBar(parts.bar, { slug, onBranch: branch, onBack: backToClass });

  parts.start.addEventListener("click", () => {
    parts.start.disabled = true;
    const ref = send("start_class");
    if (ref) refs.set(ref, "start");
    else parts.start.disabled = false;
  });

  /**
   * @param {string} type
   * @param {Record<string, unknown>} [fields]
   */
  function send(type, fields = {}) {
    return socket.message(type, fields);
  }

  /** @param {string | null} reason */
  function setLock(reason) {
    lock = reason;
    onLock(reason);
  }

  const inBranch = () =>
    kind === "private" && Boolean(classRoom) && branchRoom !== null && socket.room === branchRoom;
  const isHost = () => role === "host";
  const left = () => leftTheClass(notice?.kind);
  const claiming = () => kind === "class" && role === "student" && Boolean(hostSecret(socket.room));

  // -- what the viewer sees ---------------------------------------------------------------

  function drivingWords() {
    const control = info?.control ?? { mode: "host" };
    if (isHost()) {
      if (control.mode === "everyone") return t("Everyone drives: students' controls work too.");
      if (control.mode === "student") {
        return fmt(t("%(name)s drives; you can act too."), { name: control.driver_name ?? "?" });
      }
      return t("You drive; the students watch.");
    }
    if (control.mode === "everyone") return t("Everyone drives: your controls work.");
    if (control.mode === "student") {
      if (control.driver === me) return t("You are driving the class: everyone sees what you do.");
      return fmt(t("Watching %(name)s drive"), { name: control.driver_name ?? "?" });
    }
    return t("Watching the host drive");
  }

  function lockReason() {
    // left the class: the controls are off (disconnected) and the bar says why
    if (kind !== "class" || isHost() || left()) return null;
    if (claiming()) return t("Checking your host link…");
    const control = info?.control ?? { mode: "host" };
    if (control.mode === "everyone") return null;
    if (control.mode === "student" && control.driver === me) return null;
    const who =
      control.mode === "student"
        ? fmt(t("%(name)s is driving the class"), { name: control.driver_name ?? "?" })
        : t("The host is driving the class");
    return fmt(t("%(who)s, so your controls are off. Choose “Explore on my own” to try things yourself."), {
      who,
    });
  }

  function watchingWords() {
    return fmt(tn("%(n)s watching", "%(n)s watching", watching), { n: num(watching) });
  }

  function joinUrl() {
    return new URL(info?.join_path ?? "/join/", location.origin).href;
  }

  function hostUrl() {
    const secret = hostSecret(socket.room) ?? "";
    const url = new URL(`/labs/${slug}/`, location.origin);
    url.searchParams.set("room", /** @type {string} */ (socket.room)); // set by the hello
    return `${url.href}#host=${encodeURIComponent(secret)}`;
  }

  /**
   * What the class bar shows now (classroom/bar.js draws it).
   * @returns {BarView}
   */
  function barView() {
    if (notice) return { mode: "notice", notice };
    if (inBranch()) return { mode: "branch" };
    if (kind !== "class") return { mode: "hidden" };
    return {
      mode: isHost() ? "host" : "student",
      code: info?.code ?? "",
      joinUrl: joinUrl(),
      driving: drivingWords(),
      you: fmt(t("Class %(code)s · you are %(name)s"), { code: info?.code ?? "", name: socket.name || "?" }),
      watching: watchingWords(),
      branchError,
    };
  }

  function renderBar() {
    parts.start.hidden = kind === "class" || inBranch() || left() || notice?.kind === "waiting";
    parts.start.disabled = false;
    classBar.render(barView());
  }

  function branch() {
    branchError = "";
    const ref = send("branch");
    if (ref) refs.set(ref, "branch");
    return ref;
  }

  function render() {
    renderBar();
    const hosting = kind === "class" && isHost() && !left();
    parts.panel.hidden = !hosting;
    if (hosting) {
      hostPanel.setClass(info ?? {}, { joinUrl: joinUrl(), hostUrl: hostUrl() });
    }
    if (kind === "class" && info?.question && !claiming() && !left()) {
      questionCard.set(info.question, {
        as: isHost() ? "host" : "student",
        inRoom: /** @type {string} */ (socket.room), // set by the hello
      });
    } else {
      questionCard.hide();
    }
    setLock(lockReason());
  }

  function backToClass() {
    if (!classRoom) return;
    socket.switchRoom(classRoom);
  }

  // -- messages ------------------------------------------------------------------------------

  /** @param {Hello & {class?: ClassInfo | null}} message */
  function hello(message) {
    // a class asked for that had ended (or is gone) gives a fresh lab: say so above it
    const fresh = parting && message.kind !== "class";
    notice = fresh ? { kind: "fresh", message: /** @type {ServerError} */ (parting).message } : null;
    parting = null;
    branchError = "";
    kind = message.kind ?? "private";
    role = message.role ?? "owner";
    me = message.member ?? null;
    info = message.class ?? null;
    watching = info?.watching ?? 0;
    if (kind === "class") {
      classRoom = message.room;
      branchRoom = null;
      remember(CLASS_KEY, classRoom);
      const secret = hostSecret(message.room);
      if (secret && role !== "host") {
        const ref = send("claim_host", { secret });
        if (ref) refs.set(ref, "claim");
      }
    } else if (message.room !== branchRoom) {
      // not our branch (the class we asked for is gone): a fresh lab of our own
      branchRoom = null;
    }
    render();
  }

  /** @param {ClassMessage} message */
  function onMessage(message) {
    switch (message.type) {
      case "class_started":
        rememberHostSecret(message.room, message.secret);
        location.assign(message.host_path);
        return;
      case "branched":
        branchError = "";
        classRoom = message.parent;
        branchRoom = message.room;
        remember(CLASS_KEY, classRoom);
        socket.switchRoom(message.room);
        return;
      case "role":
        role = message.role;
        info = message.class ?? info;
        watching = info?.watching ?? watching;
        render();
        return;
      case "control":
        if (!info) return;
        info.control = message;
        hostPanel.setControl(message);
        renderBar();
        setLock(lockReason());
        return;
      case "waiting":
        // in the class's lobby: the host lets us in (a hello follows) or turns us away
        notice = { kind: "waiting", message: message.message ?? "" };
        render();
        return;
      case "lobby":
        if (info) info.lobby = message.members;
        hostPanel.setLobby(message.members ?? []);
        return;
      case "door":
        if (info) info.door = message;
        hostPanel.setDoor(message);
        return;
      case "approved":
      case "turned_away":
      case "cleared":
        hostPanel.done(message);
        return;
      case "question":
        if (!info) return;
        if (isHost()) hostPanel.setQuestion(message);
        if (isHost() && message.number !== info.question?.number) hostPanel.asked();
        info.question = message;
        questionCard.set(message, {
          as: isHost() ? "host" : "student",
          inRoom: /** @type {string} */ (socket.room), // set by the hello
        });
        return;
      case "answers":
        questionCard.answers(message);
        return;
      case "answered":
        questionCard.answered(message);
        return;
      case "roster":
        watching = message.watching ?? watching;
        if (info) info.members = message.members;
        hostPanel.setMembers(message.members ?? []);
        classBar.watching(watchingWords());
        return;
      case "removed":
        hostPanel.removed(message);
        return;
      default:
    }
  }

  return {
    hello,
    onMessage,
    presence(message) {
      watching = message.watching ?? 0;
      if (info) info.watching = watching;
      classBar.watching(watchingWords());
    },
    /**
     * The socket was closed for good (`{code, error}`, error being the server's reason):
     * removed from the class or the class ended is said in the class bar (true); any
     * other refusal is the page's to say (false).
     */
    refused({ code, error }) {
      const why = error ?? parting;
      parting = null;
      if (why?.code === "removed") notice = { kind: "removed", message: why.message };
      else if (why?.code === "turned_away") notice = { kind: "turned_away", message: why.message };
      else if (why?.code === "class_ended" || code === CLOSE_CLASS_ENDED) {
        notice = { kind: "ended", message: why?.message ?? "" };
      } else return false;
      remember(CLASS_KEY, null); // no "Back to the class" from here on
      classRoom = null;
      branchRoom = null;
      render();
      return true;
    },
    /** The lock in force now (controls rebuilt on a hello take it again). */
    lock: () => lock,
    /** Handle an error of ours; false when it belongs to someone else. */
    showError(error) {
      if (!error.ref && PARTING_CODES.has(error.code)) {
        parting = error; // the hello or the close that follows says what it means
        return true;
      }
      if (error.code === "bad_name") {
        forgetName();
        askName(parts.nameForm, error.message).then((name) => {
          socket.name = name;
          socket.connect();
        });
        return true;
      }
      const what = refs.get(error.ref);
      if (what) refs.delete(error.ref);
      if (what === "claim") {
        forgetHostSecret(socket.room);
        showGeneralError({
          message: t("this host link does not belong to this class; you are watching as a student"),
        });
        render();
        return true;
      }
      if (what === "branch") {
        branchError = sentence(error.message || error.code);
        render();
        // the bar was drawn again: keep the keyboard where it was
        if (document.activeElement === document.body) classBar.focusBranch();
        return true;
      }
      if (what === "start") {
        render();
        showGeneralError(error);
        return true;
      }
      return questionCard.showError(error) || hostPanel.showError(error);
    },
  };
}
