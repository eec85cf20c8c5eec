// The page's shared helpers: the element with this id, and a call to stud-table's JSON API.

export const $ = (id) => document.getElementById(id);

/** The JSON answer of ``path``; a refusal throws an Error with the message and its
 * ``reason`` (stud-table's ``{"error": {"reason", "message"}}``). */
export async function fetchJson(path, { method = "GET", body, token } = {}) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(data.error ? data.error.message : `HTTP ${response.status}`);
    error.reason = data.error ? data.error.reason : null;
    throw error;
  }
  return data;
}
