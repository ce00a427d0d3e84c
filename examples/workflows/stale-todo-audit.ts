// A reference repository workflow in the recommended shape: deterministic evidence gathered in
// code, Jev asked small fixed-choice questions through `judge`, and the decision made in code.
// Copy it into .stanley/workflows/ to use it.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

interface Note {
  path: string;
  line: number;
  text: string;
}

const MAX_NOTES = 8;
const STALE = 0.7;

/** Every TODO/FIXME line in tracked files, in path order (deterministic evidence). */
function collectNotes(root: string): Note[] {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((path) => path && !path.startsWith(".stanley/"));
  const notes: Note[] = [];
  for (const path of files) {
    let text: string;
    try {
      text = readFileSync(join(root, path), "utf8");
    } catch {
      continue;
    }
    if (text.includes("\0")) continue;
    text.split("\n").forEach((line, index) => {
      const match = line.match(/\b(TODO|FIXME)\b[:\s]*(.*)$/);
      if (match) notes.push({ path, line: index + 1, text: match[2].trim().slice(0, 200) });
    });
  }
  return notes;
}

export default async function ({ root }: { root: string }) {
  return {
    id: "stale_todo_audit",
    instructions: "Use when the user asks to audit, review or clean up TODO or FIXME notes in the repository.",
    examples: ["Audit the TODO notes", "Which FIXME comments are stale?"],
    async run({ judge }: { judge: (request: unknown) => Promise<any> }) {
      const notes = collectNotes(root);
      const judged = notes.slice(0, MAX_NOTES);
      const rows = [];
      for (const note of judged) {
        const answer = await judge({
          scope: `${note.path}:${note.line}`,
          state: { note },
          questions: {
            stale: {
              type: "noul",
              instructions: "Does this note describe work that is already done or no longer relevant?",
            },
          },
        });
        const p = answer.ok ? answer.answers.stale.probability : null;
        // Code decides: only a confident answer marks a note stale.
        rows.push({ ...note, stale: p !== null && p >= STALE, p, error: answer.ok ? null : answer.reason });
      }
      const stale = rows.filter((row) => row.stale);
      const text = [
        `${stale.length} of ${judged.length} judged notes look stale (${notes.length} found)`,
        ...stale.map((row) => `  ${row.path}:${row.line} ${row.text}`),
      ].join("\n");
      return {
        status: rows.some((row) => row.error) || notes.length > judged.length ? "incomplete" : "complete",
        output: { text, data: { notes: notes.length, judged: judged.length, rows } },
      };
    },
  };
}
