/** Every command prints exactly one JSON object with --json, or readable lines without it. */
export function printResult(result: object, json: boolean, out: NodeJS.WritableStream = process.stdout): void {
  if (json) {
    out.write(`${JSON.stringify(result)}\n`);
    return;
  }
  out.write(`${formatHuman(result)}\n`);
}

function formatHuman(value: object, indent = ''): string {
  return Object.entries(value)
    .map(([k, v]) => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) return `${indent}${k}:\n${formatHuman(v, `${indent}  `)}`;
      return `${indent}${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`;
    })
    .join('\n');
}

export interface CliError {
  error: { code: string; message: string };
}

export function cliError(code: string, message: string): CliError {
  return { error: { code, message } };
}
