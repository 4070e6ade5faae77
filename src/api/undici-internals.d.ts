// Types for the undici modules the transport loads directly (see src/api/transport.ts).
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import { EnvHttpProxyAgent } from 'undici';
  export default EnvHttpProxyAgent;
}
declare module 'undici/lib/api/api-request.js' {
  const request: (this: import('undici').Dispatcher, opts: import('undici').Dispatcher.RequestOptions) => Promise<import('undici').Dispatcher.ResponseData>;
  export default request;
}
declare module 'undici/lib/interceptor/redirect.js' {
  import { interceptors } from 'undici';
  const redirect: typeof interceptors.redirect;
  export default redirect;
}
declare module 'undici/lib/interceptor/decompress.js' {
  import { interceptors } from 'undici';
  const decompress: typeof interceptors.decompress;
  export default decompress;
}
declare module 'undici/lib/api/api-connect.js' {
  const connect: (this: import('undici').Dispatcher, opts: import('undici').Dispatcher.ConnectOptions) => Promise<import('undici').Dispatcher.ConnectData>;
  export default connect;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}
declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export default Pool;
}
declare module 'undici/lib/core/symbols.js' {
  /** kParser: the HTTP/1.1 parser of a connection's socket. */
  const symbols: { kParser: symbol };
  export default symbols;
}
