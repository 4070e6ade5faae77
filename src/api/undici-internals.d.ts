// Types for the two undici modules the client loads directly (see client.ts).
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/api/api-request.js' {
  const request: (this: import('undici').Dispatcher, opts: import('undici').Dispatcher.RequestOptions) => Promise<import('undici').Dispatcher.ResponseData>;
  export default request;
}
