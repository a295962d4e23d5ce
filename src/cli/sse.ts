/** One server-sent event: its name (`message` when none was given) and its data lines joined. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/**
 * Reads a `text/event-stream` body as events (the WHATWG parsing rules that matter here: `event:`
 * and `data:` fields, comment lines, CRLF or LF line ends, an event ending at a blank line).
 * `onChunk` hears every chunk, heartbeats included. `id:` and `retry:` are ignored: `dossier listen` resumes from the server's state, not from ids.
 */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>, onChunk?: () => void): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  for await (const chunk of body) {
    onChunk?.();
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r?\n/)) !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer[end] === '\r' ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  }
}
