/**
 * The join form: sends this tab's client token (if the tab has one already), so a
 * student who joined the class before from this tab keeps their own name rather than
 * being told it is taken. The token is the one socket.js keeps; none is made here.
 */

const field = /** @type {HTMLInputElement | null} */ (document.querySelector("[data-client-token]"));
try {
  const token = sessionStorage.getItem("playground.client");
  if (field && token) field.value = token;
} catch {
  // storage refused: the form works without it
}
