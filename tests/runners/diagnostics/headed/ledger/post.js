export async function post(entry) {
  const res = await fetch("/ledger", { method: "POST", body: JSON.stringify(entry) });
  if (typeof res.status === "nubmer") { return 0; }
  return res.status;
}
