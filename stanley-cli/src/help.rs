//! The help text of `stanley`.

/// The full help, for `--help`, `help`, and an empty command line.
pub fn help_text(version: &str) -> String {
    format!(
        r#"stanley {version} - Jev-first, self-improving coding agent

Usage: stanley "<request>" [options]

Say what you need in plain language; the request is the task.
Jev routes the request to one available workflow, and that workflow reads it
as its instructions. Built-ins can:
  - find code relevant to a task
  - check the current diff against the request, and against acceptance
    criteria or project rules given as input
  - review the current diff for correctness, test gaps, security,
    performance or compatibility risks
  - summarize the current diff as structured change categories
  - triage test or CI failures you supply
  - triage review comments you supply
Trusted repository workflows in .stanley/workflows/ add to this list.
Requests no workflow supports go to the installed Pi coding agent, and
Stanley then queues a bounded attempt to write a workflow for next time.

Examples:
  stanley "Find the code behind webhook retries"
  stanley "Check that this fixes the null config crash"
  stanley "Check the staged changes against the criteria" --scope staged --input acceptance.md
  stanley "Review these changes for correctness bugs"
  stanley "Look for security issues in this diff"
  stanley "Summarize what changed on this branch" --scope branch --base main
  npm test 2>&1 | stanley "Triage these test failures"
  stanley "Triage these review comments" --input comments.json

Options:
  --input <path|->     One piece of evidence: a file inside the repository,
                       or - for standard input (piped input is read too)
  --scope <kind>       worktree (default), staged, or branch
  --base <ref>         Base ref for a branch diff (default main)
  --repo <dir>         Repository to work in (default: the current directory)
  --json               Emit a versioned result (schema stanley.prompt-result/v1)
  --verbose            List every item the report counts: parked, excluded and
                       unjudged items, and each item's row
  --no-persist         Do not write run records under .stanley/runs/
  --no-agent           Never delegate to a coding agent (also STANLEY_AGENT=off)
  -h, --help           Show this help
  -v, --version        Show the version

Administrative (self-improvement):
  --improve-worker            Process queued workflow-improvement jobs now
  --promote-candidate <id>    Activate a validated workflow candidate

Environment:
  TYPESAFE_API_KEY       Jev credential (required)
  TYPESAFE_BASE_URL      System One API root (default https://api.typesafe.ai)
  TYPESAFE_MODEL         Jev model (default jev-1.13.0)
  STANLEY_PI_BIN         Path to the pi coding agent
  STANLEY_AGENT_MODEL    Model the coding agent uses
  STANLEY_CACHE=off      Ask Jev everything, ignoring answers kept from earlier
  STANLEY_TRIAGE_PARSERS=generic
                         Read failure logs without any runner's own parser
  NO_COLOR=1             Print no colour, even on a terminal
  CLICOLOR_FORCE=1       Print colour even into a pipe

Limits (request budgets, hunk and item caps, agent time limits) are fixed
policy, not flags.

Exit codes: 0 complete; 10 incomplete coverage; 12 budget exhausted;
64 usage or unsupported request; 65 invalid input; 69 daemon unavailable, or
Jev unreachable or failing (a Jev error names TYPESAFE_BASE_URL or says for
how long it tried); 70 internal error; 74 output could not be written;
77 Jev refused the key in TYPESAFE_API_KEY; 130 interrupted; 141 output closed
(a closed pipe); 143 terminated

Built-in results are advisory and read-only. Trusted repository workflows
and the coding agent may change files; a delegated result is the agent's own
account and Stanley does not verify it. Without an agent, implement or fix
requests exit 64 after a read-only relevant-code analysis. Every built-in
report lists what it did not check. "No flags" is not an approval.
"#
    )
}
