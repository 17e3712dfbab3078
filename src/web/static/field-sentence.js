// The API's sentence for a field ("viewport.width can be at most 3,840 px: …") as a form shows it:
// the form's own name for the field in place of the API's ("Viewport width can be at most …"), said
// once. A sentence that does not start with the field's path is shown as the API wrote it.

/** `label`: the name the form gives the field (its <label>'s own words), if any. */
export function fieldSentence(path, message, label) {
  const text = String(message);
  const named = label && path && text.startsWith(`${path} `) ? `${label}${text.slice(path.length)}` : text;
  return named.charAt(0).toUpperCase() + named.slice(1);
}

/** The words of the <label> for `input`, without its hints (the first text of the label). */
export function labelOf(input) {
  const label = input?.id ? document.querySelector(`label[for="${CSS.escape(input.id)}"]`) : null;
  return label?.firstChild?.textContent?.trim() || undefined;
}
