// What the page's scripts (public/*.js, checked with tsc --checkJs) know of each other and of htmx.
interface HearthFrame {
  thread: HTMLElement;
  /** The thread was scrolled since the last frame. */
  scrolled: boolean;
  position(): { top: number; nearBottom: boolean };
  scrollToEnd(): void;
}

interface Hearth {
  byId(id: string): HTMLElement | null;
  thread(): HTMLElement | null;
  showLine(id: string, text: string): void;
  cancelSocketMessage(event: CustomEvent<HtmxWsDetail>): void;
  announce(text: string): void;
  within(event: Event, selector: string): HTMLElement | null;
  csrfToken(): string;
  afterThreadChange(change: (thread: HTMLElement) => void, when?: () => boolean): void;
  isPartialWindow(): boolean;
  isNearBottom(element: HTMLElement): boolean;
  onFrame(hook: (frame: HearthFrame) => void): void;
  requestFrame(): void;
}

interface Window {
  hearth: Hearth;
  htmx?: { process(element: Element): void; ajax(verb: string, path: string, options: { target: string; select: string }): Promise<void> };
}

/** The detail of htmx 4's WebSocket events, as the scripts use it. */
interface HtmxWsDetail {
  cancelled?: boolean;
  message: { data: string; values: Record<string, string | undefined> };
  connection: { url: string };
}

interface HtmxSwapTask {
  target?: Element | null;
  swapSpec: { style: string };
  fragment: DocumentFragment;
}

interface HtmxSwapDetail {
  ctx: { sourceElement?: Element };
  tasks: HtmxSwapTask[];
}

interface DocumentEventMap {
  'htmx:ws:before:message:incoming': CustomEvent<HtmxWsDetail>;
  'htmx:ws:after:message:incoming': CustomEvent<HtmxWsDetail>;
  'htmx:ws:before:message:outgoing': CustomEvent<HtmxWsDetail>;
  'htmx:ws:before:connection': CustomEvent<HtmxWsDetail>;
  'htmx:ws:after:connection': CustomEvent<HtmxWsDetail>;
  'htmx:ws:close': CustomEvent<HtmxWsDetail>;
  'htmx:before:swap': CustomEvent<HtmxSwapDetail>;
  'htmx:after:swap': CustomEvent<{ ctx: { target?: Element | null } }>;
  'htmx:response:error': CustomEvent<{ ctx: { response: { status: number } } }>;
  'htmx:error': CustomEvent<{ error: unknown }>;
}

/** A data frame from the socket (JSON; HTML frames are swapped by htmx). */
interface DataFrame {
  event: string;
  target?: string;
  text?: string;
  running?: boolean;
  conversationId?: number;
  url?: string;
  title?: string;
  /** session-ended: what to tell the person. */
  message?: string;
}
