// A direct API call with a key, to compare what a command prints with what the API says.
export async function rawGet(baseUrl: string, path: string, key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json() };
}
