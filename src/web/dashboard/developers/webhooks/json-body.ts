/**
 * A JSON text re-indented with two spaces for reading, every token kept exactly as written (a
 * number's digits, a string's escapes), so the indented body says nothing the raw one does not.
 * Null when the text is not JSON: it is then shown as it is.
 */
export function indentedJson(raw: string): string | null {
  try {
    JSON.parse(raw);
  } catch {
    return null;
  }
  const space = (c: string | undefined) => c === ' ' || c === '\n' || c === '\r' || c === '\t';
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < raw.length; ) {
    const c = raw[i]!;
    if (c === '"') {
      let j = i + 1;
      while (raw[j] !== '"') j += raw[j] === '\\' ? 2 : 1;
      out += raw.slice(i, j + 1);
      i = j + 1;
    } else if (space(c)) {
      i++;
    } else if (c === '{' || c === '[') {
      let j = i + 1;
      while (space(raw[j])) j++;
      if (raw[j] === (c === '{' ? '}' : ']')) {
        out += `${c}${raw[j]}`;
        i = j + 1;
      } else {
        depth++;
        out += c + newline();
        i++;
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
      i++;
    } else if (c === ',') {
      out += `,${newline()}`;
      i++;
    } else if (c === ':') {
      out += ': ';
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
