// Declarative metadata of every command: names, arguments, options and examples (the
// module that runs each is loaded by the command tree, src/cli/commands.ts). The help, the parser and the shell completions all come from here.
import { BODY_TYPES, CITIES, MILEAGE_TYPES, ORDER_BY, PAYMENT_TYPES, PROTECTION_PLANS } from '../api/enums.js';
import { HELP_TOPICS } from './help-topics.js';
import type { PathsOf, SpecAt, SpecInput } from './command-types.js';
import type { Context } from '../session/context.js';

export interface ArgSpec {
  syntax: string; // commander syntax: <alias>, [uuid]
  key: string; // property name in the command's input
  description: string;
  /** What completes this argument: a dynamic source or fixed values. */
  complete?: 'car-alias' | 'reservation-uuid' | 'cancellable-reservation' | 'payable-reservation' | 'invoice-uuid' | 'profile' | readonly string[];
}

export interface OptionSpec {
  flags: string;
  description: string;
  choices?: readonly string[];
  repeatable?: boolean;
  hidden?: boolean;
  /** car-extra: the extras of the car named by the command's first argument; operation-id: the API's operation ids. */
  complete?: 'car-alias' | 'reservation-uuid' | 'profile' | 'file' | 'car-extra' | 'operation-id';
}

export interface CommandSpec {
  name: string;
  description: string;
  aliases?: string[];
  args?: ArgSpec[];
  options?: OptionSpec[];
  examples?: string[];
  subcommands?: CommandSpec[];
  /** Left out of help, suggestions and completions (plumbing for the completion scripts). */
  hidden?: boolean;
  /** The command's path (`config get`), under which the command tree (src/cli/commands.ts) keeps the loader of its module. */
  module?: string;
  /**
   * Its output may go through a pager on a terminal (pager.ts): it prints a finished
   * document and never prompts or waits; a function decides from the parsed options.
   */
  pager?: boolean | ((input: Record<string, unknown>) => boolean);
}

/**
 * CommandSpec as written below, `as const`: read-only arrays and literal flags, from which
 * command-types.ts derives each command's input type.
 */
type DeclaredSpec = Omit<CommandSpec, 'aliases' | 'args' | 'options' | 'examples' | 'subcommands'> & {
  readonly aliases?: readonly string[];
  readonly args?: readonly ArgSpec[];
  readonly options?: readonly OptionSpec[];
  readonly examples?: readonly string[];
  readonly subcommands?: readonly DeclaredSpec[];
};

const dateRange = [
  { flags: '--from <date>', description: 'check-in, car-local: "YYYY-MM-DD HH:MM", "tomorrow 10:00", "+3d 10:00"' },
  { flags: '--to <date>', description: 'check-out, car-local, in the same forms as --from' },
  { flags: '--days <n>', description: 'instead of --to: check out n days after the check-in, same time' },
] as const satisfies readonly OptionSpec[];

export const QUOTE_OPTIONS = [
  ...dateRange,
  { flags: '--protection <plan>', description: 'protection plan (default minimum)', choices: PROTECTION_PLANS },
  { flags: '--mileage <type>', description: 'mileage (default limited)', choices: MILEAGE_TYPES },
  { flags: '--delivery-address <address>', description: 'deliver the car to this address instead of pickup' },
  { flags: '--extra <type>', description: 'add an extra by item type (repeatable)', repeatable: true, complete: 'car-extra' },
  { flags: '--promo <code>', description: 'promo code' },
] as const satisfies readonly OptionSpec[];

const uuidArg = (description: string, complete: ArgSpec['complete'] = 'reservation-uuid') => ({ syntax: '<uuid>', key: 'uuid', description, complete }) as const satisfies ArgSpec;

/** The sandbox control commands act on a running `sandbox serve` found by this, or --base-url. */
const PORT = { flags: '--port <n>', description: 'act on the `sandbox serve` on this port (default: the embedded state, or --base-url)' } as const satisfies OptionSpec;

const DECLARED = [
  {
    name: 'cars',
    description: 'search cars; with dates, shows availability and trip totals',
    options: [
      { flags: '--city <city>', description: 'la or miami', choices: CITIES },
      ...dateRange,
      { flags: '--body-type <type>', description: 'body type', choices: BODY_TYPES },
      { flags: '--make-id <n>', description: 'make id (integer >= 0)' },
      { flags: '--model-id <n>', description: 'model id (integer >= 0)' },
      { flags: '--sort <order>', description: 'order by price', choices: ORDER_BY },
      { flags: '--limit <n>', description: 'cars per page, 1..200 (default 50)' },
      { flags: '--offset <n>', description: 'skip this many cars (default 0)' },
      { flags: '--all', description: 'fetch every page, one at a time, following has_more' },
      { flags: '--parallel <n>', description: 'with --all: ask up to n pages at once (1..4, default 1); faster on a slow link, but may ask up to n-1 pages past the end if the catalog shrinks meanwhile' },
      { flags: '--available', description: 'with --from/--to: only the cars available for those dates' },
    ],
    examples: [
      'carrental cars --city la',
      'carrental cars --city miami --from "tomorrow 10:00" --days 3 --sort price_asc',
      "carrental cars --city la --all --jq '.cars | length'",
      'carrental cars --city la --json car_alias,name',
    ],
    module: 'cars',
    pager: true,
  },
  {
    name: 'car',
    description: 'one car: specs, prices, extras, protection plans, blocked ranges',
    args: [{ syntax: '<alias>', key: 'alias', description: 'the car alias (see `carrental cars`)', complete: 'car-alias' }],
    examples: ['carrental car toyota-camry-1001', 'carrental car toyota-camry-1001 --json'],
    module: 'car',
    pager: true,
  },
  {
    name: 'quote',
    description: 'price a trip (anonymous unless a key is configured); the deposit is shown apart',
    args: [{ syntax: '<alias>', key: 'alias', description: 'the car alias', complete: 'car-alias' }],
    options: [...QUOTE_OPTIONS, { flags: '--anonymous', description: 'send no credential even when a key is configured' }],
    examples: [
      'carrental quote toyota-camry-1001 --from "tomorrow 10:00" --days 3',
      'carrental quote toyota-rav4-hybrid-1003 --from "+7d 10:00" --to "+14d 10:00" --protection standard --extra child_seat --promo SAVE50',
    ],
    module: 'quote',
    pager: true,
  },
  {
    name: 'trips',
    description: 'list your trips, or show one with payment status, invoices and cancellation outcome',
    args: [{ syntax: '[uuid]', key: 'uuid', description: 'a reservation uuid (or a unique prefix) for the detail', complete: 'reservation-uuid' }],
    options: [
      { flags: '--watch', description: 'with a uuid: re-read every 5 s until the status or payment status changes' },
      { flags: '--interval <seconds>', description: 'seconds between reads with --watch (minimum 5)' },
      { flags: '--watch-timeout <seconds>', description: 'give up watching after this long (exit 6)' },
    ],
    examples: ['carrental trips', 'carrental trips <uuid>', 'carrental trips <uuid> --watch'],
    module: 'trips',
    pager: (input: Record<string, unknown>) => !input.watch,
  },
  {
    name: 'reserve',
    description: 'quote, confirm and create an unpaid reservation (safe to rerun: see `pending`)',
    args: [{ syntax: '[alias]', key: 'alias', description: 'the car alias (prompted on a terminal when missing)', complete: 'car-alias' }],
    options: [
      { flags: '--city <city>', description: 'city to choose a car in when prompting', choices: CITIES },
      ...QUOTE_OPTIONS,
      { flags: '--idempotency-key <key>', description: 'use this Idempotency-Key (16..128 printable ASCII) instead of a generated one' },
      { flags: '--new', description: 'book again even if this same command booked in the last 10 minutes (a rerun otherwise returns that reservation)' },
      { flags: '--dry-run', description: 'print the request it would send (key masked) and what the journal would do (new, resume, replay); send nothing' },
      { flags: '--no-quote', description: 'with --dry-run: ask for no quote either (a dry run quotes by default, a read)' },
    ],
    examples: [
      'carrental reserve toyota-camry-1001 --from "tomorrow 10:00" --days 3',
      'carrental reserve toyota-corolla-1002 --from "+20d 10:00" --to "+23d 18:00" -y --json',
      'carrental reserve   # on a terminal: prompts for city, dates, car and options',
    ],
    module: 'reserve',
  },
  {
    name: 'cancel',
    description: 'cancel a reservation (a fee may apply), then show the cancellation outcome',
    args: [uuidArg('the reservation uuid, or a unique prefix of one of yours', 'cancellable-reservation')],
    options: [
      { flags: '--idempotency-key <key>', description: 'use this Idempotency-Key instead of a generated one' },
      { flags: '--dry-run', description: 'print the request it would send (key masked) and what the journal would do (new, resume, replay); send nothing' },
    ],
    examples: ['carrental cancel <uuid>', 'carrental cancel <uuid> -y --json', 'carrental cancel <uuid> --dry-run'],
    module: 'cancel',
  },
  {
    name: 'pay-link',
    description: 'get the link where the customer pays rent or the deposit',
    args: [uuidArg('the reservation uuid, or a unique prefix of one of yours', 'payable-reservation')],
    options: [
      { flags: '--type <type>', description: 'what to pay (default rent)', choices: PAYMENT_TYPES },
      { flags: '--open', description: 'open the link in the default browser' },
      { flags: '--wait', description: 're-read every 5 s until the payment asked for is made (rent: nothing owed; deposit: held or paid)' },
      { flags: '--wait-timeout <seconds>', description: 'give up waiting after this long (exit 6)' },
      { flags: '--dry-run', description: 'print the request it would send (key masked); ask for no link' },
    ],
    examples: ['carrental pay-link <uuid>', 'carrental pay-link <uuid> --type deposit --open --wait'],
    module: 'pay-link',
  },
  {
    name: 'extend-link',
    description: 'preview an extension price and get the link where the customer confirms it',
    args: [uuidArg('the reservation uuid, or a unique prefix of one of yours')],
    options: [
      { flags: '--to <date>', description: 'target check-out, car-local: "YYYY-MM-DD HH:MM", or relative as "+5d 10:00"' },
      { flags: '--dry-run', description: 'print the link request it would send (key masked), after the price preview of --to; ask for no link' },
      { flags: '--open', description: 'open the link in the default browser' },
    ],
    examples: ['carrental extend-link <uuid> --to "+30d 10:00"', 'carrental extend-link <uuid> --open'],
    module: 'extend-link',
  },
  {
    name: 'invoices',
    description: 'the invoices of a reservation, with line items',
    args: [uuidArg('the reservation uuid, or a unique prefix of one of yours')],
    examples: ['carrental invoices <reservation-uuid>', "carrental invoices <reservation-uuid> --json | jq '.[].amount'"],
    module: 'invoices',
    pager: true,
  },
  {
    name: 'invoice',
    description: 'one invoice',
    args: [{ syntax: '<uuid>', key: 'uuid', description: 'the invoice uuid, or a unique prefix of one of yours', complete: 'invoice-uuid' }],
    examples: ['carrental invoice <invoice-uuid>'],
    module: 'invoice',
    pager: true,
  },
  {
    name: 'profile',
    description: 'who the key belongs to',
    examples: ['carrental profile', 'carrental profile --json'],
    module: 'profile',
  },
  {
    name: 'verification',
    description: 'identity verification and driver licence status, with expiry warnings',
    examples: ['carrental verification'],
    module: 'verification',
  },
  {
    name: 'cards',
    description: 'the saved payment card, masked',
    examples: ['carrental cards'],
    module: 'cards',
  },
  {
    name: 'card-link',
    description: 'get the link where the customer adds or replaces a card',
    options: [
      { flags: '--open', description: 'open the link in the default browser' },
      { flags: '--dry-run', description: 'print the request it would send (key masked); ask for no link' },
    ],
    examples: ['carrental card-link', 'carrental card-link --open'],
    module: 'card-link',
  },
  {
    name: 'auth',
    description: 'store, check or forget the API key of a profile',
    examples: ['carrental auth login', 'carrental auth status --profile ci'],
    subcommands: [
      {
        name: 'login',
        description: 'store an API key (prompted, masked; or read from stdin with --with-key) after checking it',
        options: [{ flags: '--with-key', description: 'read the key from standard input' }],
        examples: ['carrental auth login', 'printf %s "$CARRENTAL_KEY" | carrental auth login --with-key --profile ci'],
        module: 'auth login',
      },
      {
        name: 'status',
        description: 'show the profile, base URL, masked key and whose key it is',
        examples: ['carrental auth status'],
        module: 'auth status',
      },
      {
        name: 'logout',
        description: 'forget the stored key of the profile',
        examples: ['carrental auth logout --profile ci'],
        module: 'auth logout',
      },
    ],
  },
  {
    name: 'config',
    description: 'read and change settings of a profile (base_url, app_url, city)',
    examples: ['carrental config set city miami', 'carrental config list'],
    subcommands: [
      {
        name: 'get',
        description: 'print one setting',
        args: [{ syntax: '<key>', key: 'key', description: 'base_url, app_url or city', complete: ['base_url', 'app_url', 'city'] }],
        examples: ['carrental config get city'],
        module: 'config get',
      },
      {
        name: 'set',
        description: 'change one setting (the API key is set with `auth login`, never here)',
        args: [
          { syntax: '<key>', key: 'key', description: 'base_url, app_url or city', complete: ['base_url', 'app_url', 'city'] },
          { syntax: '<value>', key: 'value', description: 'the new value' },
        ],
        examples: ['carrental config set base_url https://api.example.com/v1', 'carrental config set base_url sandbox --profile demo'],
        module: 'config set',
      },
      {
        name: 'unset',
        description: 'remove one setting',
        args: [{ syntax: '<key>', key: 'key', description: 'base_url, app_url or city', complete: ['base_url', 'app_url', 'city'] }],
        examples: ['carrental config unset city'],
        module: 'config unset',
      },
      {
        name: 'list',
        description: 'list the settings of every profile (keys masked)',
        examples: ['carrental config list', 'carrental config list --json'],
        module: 'config list',
      },
      {
        name: 'path',
        description: 'print the path of the config file',
        examples: ['carrental config path'],
        module: 'config path',
      },
    ],
  },
  {
    name: 'pending',
    description: 'reserve and cancel commands whose outcome is not known yet (rerun them to finish)',
    subcommands: [
      {
        name: 'list',
        description: 'list pending commands of the current API key (the default)',
        options: [{ flags: '--all', description: 'list every API key’s and profile’s pending commands' }],
        examples: ['carrental pending list', 'carrental pending list --all --json'],
        module: 'pending list',
      },
      {
        name: 'clear',
        description: "drop the current API key's pending commands (their outcome stays unknown; asks first)",
        options: [{ flags: '--all', description: 'drop every API key’s and profile’s pending commands' }],
        examples: ['carrental pending clear', 'carrental pending clear --all -y'],
        module: 'pending clear',
      },
    ],
    examples: ['carrental pending', 'carrental pending list --all'],
    // bare `pending` is `pending list` without --all, which it does not declare
    module: 'pending',
  },
  {
    name: 'api',
    description: 'make a raw API call with the profile’s credentials and print the body',
    args: [
      { syntax: '<method>', key: 'method', description: 'GET, POST, DELETE, ...', complete: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
      { syntax: '<path>', key: 'path', description: 'path relative to the base URL, e.g. /my/profile' },
    ],
    options: [
      { flags: '--body <json>', description: 'request body as JSON, or - to read it from stdin' },
      { flags: '-H, --header <header>', description: 'extra header "Name: value" (repeatable)', repeatable: true },
      { flags: '-i, --include', description: 'print the status line and response headers to stderr' },
      { flags: '--anonymous', description: 'send no credential (never sent on the anonymous operations anyway)' },
      { flags: '--paginate', description: 'GET every page (offset until has_more is false) and print one merged document' },
      { flags: '--dry-run', description: 'a write: print the request it would send (key masked) and, for create and cancel, what the journal would do; send nothing' },
    ],
    examples: ['carrental api GET /my/profile', "carrental api GET '/cars?city=la&limit=200' --paginate --jq '.data.cars | length'", "carrental api GET '/cars?city=la&limit=3' --anonymous"],
    module: 'api',
  },
  {
    name: 'status',
    description: 'what each active trip still needs (rent, deposit, extension, refund) and the next command',
    options: [{ flags: '--exit-status', description: 'exit 8 when something needs you (for a CI gate)' }],
    examples: ['carrental status', 'carrental status --exit-status || echo "something needs paying"', "carrental status --jq '.trips[] | select(.needs_action) | .items[].next'"],
    module: 'status',
    pager: true,
  },
  {
    name: 'doctor',
    description: 'check config, reachability, credential, capability and which operations are deployed',
    options: [
      {
        flags: '--require <operation>',
        description: 'an operation id (see the report) or "all" that must be deployed and answer, else exit non-zero (repeatable; commas allowed)',
        repeatable: true,
        complete: 'operation-id',
      },
      { flags: '--write', description: 'fail unless the key can create and cancel reservations (booking_write); with --contract: also reserve a far-future trip, read it back, get a pay link and cancel it' },
      { flags: '--contract', description: 'check every answer of the deployed reads against the spec (fields, types, cents, dates, value sets, Retry-After, 404s); exit 1 on a violation' },
      { flags: '--junit <file>', description: 'with --contract: write the findings as JUnit XML (one test case per operation and rule)', complete: 'file' },
    ],
    examples: [
      'carrental doctor',
      'carrental --sandbox doctor --json',
      'CARRENTAL_API_KEY=... carrental doctor --require listTrips,getReservation --write',
      'CARRENTAL_API_KEY=... carrental doctor --contract --junit contract.xml',
    ],
    module: 'doctor',
    // --contract --write asks before it books: decided here, never a question behind less
    pager: (input: Record<string, unknown>) => !(input.contract && input.write),
  },
  {
    name: 'completion',
    description: 'print a shell completion script',
    args: [{ syntax: '<shell>', key: 'shell', description: 'bash, zsh or fish', complete: ['bash', 'zsh', 'fish'] }],
    examples: [
      'carrental completion fish > ~/.config/fish/completions/carrental.fish   # after mkdir -p ~/.config/fish/completions',
      'carrental completion bash | head -3   # the install lines of every shell: docs/completion.md',
    ],
    module: 'completion',
  },
  {
    name: '__complete',
    description: 'print completion candidates, one per line (used by the completion scripts)',
    hidden: true,
    args: [
      {
        syntax: '<kind>',
        key: 'kind',
        description: 'cars, reservations, cancellable, payable, invoices, extras or profiles',
        complete: ['cars', 'reservations', 'cancellable', 'payable', 'invoices', 'extras', 'profiles'],
      },
      { syntax: '[context]', key: 'context', description: 'the first argument typed on the line (the car alias, for extras)' },
    ],
    examples: ['carrental __complete cars', 'carrental --profile demo __complete reservations', 'carrental --sandbox __complete extras tesla-model-3-la-001'],
    module: '__complete',
  },
  {
    name: 'mcp',
    description: 'run a Model Context Protocol server (stdio, or Streamable HTTP with --http): the API as tools for AI agents (read-only unless --allow-booking)',
    options: [
      { flags: '--allow-booking', description: 'also offer reserve and cancel_reservation (needs a booking_write key)' },
      { flags: '--toolsets <list>', description: 'comma-separated: catalog, account, links, booking (default: the read-only ones, plus booking with --allow-booking)' },
      { flags: '--http', description: 'serve over Streamable HTTP on 127.0.0.1 instead of stdio; prints one JSON line with the URL' },
      { flags: '--port <n>', description: 'with --http: the port (default 0: a free one)' },
      { flags: '--token-file <path>', description: 'with --http: write the bearer token to this file (mode 0600) instead of stderr' },
      { flags: '--require-customer', description: 'refuse reserve and cancel_reservation from hosts that cannot ask the customer themselves (no elicitation)' },
    ],
    examples: ['carrental mcp', 'carrental --sandbox mcp --allow-booking', 'carrental mcp --toolsets catalog', 'carrental mcp --http --port 8931 --token-file ~/.carrental-mcp-token'],
    module: 'mcp',
  },
  {
    name: 'sandbox',
    description: 'the embedded sandbox API and its customer pages',
    examples: ['carrental sandbox serve --port 8787', 'carrental --sandbox cars --city la'],
    subcommands: [
      {
        name: 'serve',
        description: 'run the sandbox as a server on 127.0.0.1 and print its base URL, app URL and demo keys',
        options: [
          { flags: '--port <n>', description: 'port (default 4780 or CARRENTAL_SANDBOX_PORT; 0 picks a free port)' },
          { flags: '--state <file>', description: 'state file (default: the embedded sandbox state in the data directory)', complete: 'file' },
          { flags: '--reset', description: 'discard the state and start from the seeded fixtures' },
          { flags: '--fleet-size <n>', description: 'number of cars in the seeded fleet (default 300)', hidden: true },
          { flags: '--seed <n>', description: 'fixture seed (default 1)', hidden: true },
          { flags: '--no-rate-limit', description: 'disable rate budgets (for load tests)', hidden: true },
          { flags: '--log', description: 'print one line per request on stderr (default: when stderr is a terminal)' },
          { flags: '--no-log', description: 'print no request lines', hidden: true },
        ],
        examples: ['carrental sandbox serve --port 8787', 'carrental sandbox serve --port 0 --state /tmp/sb.json --json'],
        module: 'sandbox serve',
      },
      {
        name: 'openapi',
        description: 'print the OpenAPI 3.1 description of the API',
        examples: ["carrental sandbox openapi | jq '.paths | keys'"],
        module: 'sandbox openapi',
      },
      {
        name: 'reset',
        description: 'discard the embedded sandbox state (asks first; -y where nobody can answer)',
        examples: ['carrental sandbox reset', 'carrental sandbox reset -y'],
        module: 'sandbox reset',
      },
      {
        name: 'pay',
        description: 'pay a reservation as its customer would on the payment page: the rent, or the deposit hold',
        args: [uuidArg('reservation uuid')],
        options: [{ flags: '--type <type>', description: 'rent (default) or deposit', choices: ['rent', 'deposit'] }, PORT],
        examples: ['carrental sandbox pay <uuid>', 'carrental sandbox pay <uuid> --type deposit --port 4780'],
        module: 'sandbox pay',
      },
      {
        name: 'card',
        description: 'save a test card for a customer, or remove the saved one',
        args: [{ syntax: '<action>', key: 'action', description: 'add or remove', complete: ['add', 'remove'] }],
        options: [
          { flags: '--customer <who>', description: 'customer handle or id (default dana, whose keys the demo uses)' },
          { flags: '--brand <brand>', description: 'card brand (default visa)' },
          { flags: '--last4 <digits>', description: 'last four digits (default 4242)' },
          { flags: '--exp <MM/YYYY>', description: 'expiry (default December, three years ahead)' },
          PORT,
        ],
        examples: ['carrental sandbox card add --customer lee', 'carrental sandbox card remove --customer dana'],
        module: 'sandbox card',
      },
      {
        name: 'extend',
        description: 'confirm an extension as the customer would on the extension page',
        args: [uuidArg('reservation uuid')],
        options: [{ flags: '--to <date>', description: 'new checkout, car-local YYYY-MM-DDTHH:MM' }, PORT],
        examples: ['carrental sandbox extend <uuid> --to "+30d 10:00"'],
        module: 'sandbox extend',
      },
      {
        name: 'clock',
        description: 'show, set or advance the sandbox clock (kept in its state)',
        args: [
          { syntax: '[action]', key: 'action', description: 'show (default), set or advance', complete: ['show', 'set', 'advance'] },
          { syntax: '[value]', key: 'value', description: 'set: an ISO instant with a zone; advance: a duration such as 2d, 3h, 1d12h' },
        ],
        options: [PORT],
        examples: ['carrental sandbox clock', 'carrental sandbox clock advance 2d', 'carrental sandbox clock set 2026-12-01T09:00:00Z'],
        module: 'sandbox clock',
      },
      {
        name: 'fault',
        description: 'inject faults into a running sandbox serve (latency, drops, error codes, malformed bodies)',
        args: [
          { syntax: '<action>', key: 'action', description: 'add, list or clear', complete: ['add', 'list', 'clear'] },
          { syntax: '[kind]', key: 'kind', description: 'add: latency, drop, error, malformed or operation_not_enabled; clear: a fault id (default all)' },
        ],
        options: [
          { flags: '--operation <id>', description: 'operation id, e.g. createReservation (default *: every operation)' },
          { flags: '--code <code>', description: 'error: the error code to answer with' },
          { flags: '--commit', description: 'error: run and commit the command first, then answer with the error' },
          { flags: '--ms <n>', description: 'latency: milliseconds' },
          { flags: '--when <when>', description: 'latency or drop: before_commit or after_commit', choices: ['before_commit', 'after_commit'] },
          { flags: '--body <body>', description: 'malformed: invalid_json or schema', choices: ['invalid_json', 'schema'] },
          { flags: '--times <n>', description: 'only the next n matching requests (default: until cleared)' },
          PORT,
        ],
        examples: [
          'carrental sandbox fault add error --operation createReservation --code operation_outcome_unknown --commit --times 1 --port 4780',
          'carrental sandbox fault list --port 4780',
          'carrental sandbox fault clear --port 4780',
        ],
        module: 'sandbox fault',
      },
      {
        name: 'keys',
        description: 'the demo keys of the sandbox customers and the app token',
        options: [PORT],
        examples: ['carrental sandbox keys --json'],
        module: 'sandbox keys',
      },
    ],
  },
  {
    // `help` and `help <command>` are commander's help (src/cli/main.ts); a topic runs the module
    name: 'help',
    description: `help for a command, or a topic of the manual: ${HELP_TOPICS.map((t) => t.name).join(', ')}`,
    args: [
      {
        syntax: '[topic]',
        key: 'topic',
        description: 'a command or a help topic',
        // a getter: the command names are those of this very array
        get complete() {
          return [...COMMANDS.filter((c) => !c.hidden).map((c) => c.name), ...HELP_TOPICS.map((t) => t.name)];
        },
      },
    ],
    examples: ['carrental help', 'carrental help reserve', 'carrental help exit-codes', 'carrental help environment | less'],
    module: 'help',
    pager: true,
  },
] as const;

// read-only in fact; typed as CommandSpec for the help, parser and completion walks
export const COMMANDS = DECLARED as unknown as CommandSpec[];

/** Every command's path: `cars`, `config set`, `sandbox pay`. */
export type CommandPath = PathsOf<typeof DECLARED>;

/** The input a command's run function gets, from its declaration: `InputOf<'cars'>`. */
export type InputOf<P extends CommandPath> = SpecInput<SpecAt<typeof DECLARED, P>>;

/** The declarations as written: the command tree (src/cli/commands.ts) checks its modules against them. */
export type Declared = typeof DECLARED;

// not `satisfies` on DECLARED: its contextual type would erase the modules' types in `.then`
type Declares<T extends readonly DeclaredSpec[]> = T;
export type DeclarationsAreSpecs = Declares<typeof DECLARED>;
