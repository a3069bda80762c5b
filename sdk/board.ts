/*
 * The <ranking-board> element (docs/embed.md): importing this module defines
 * it, once. Served by the service as /embed/board.js (a classic script whose
 * global is RankingBoard) and published in the SDK package as
 * `@ranking-service/sdk/board` (an ES module with Lit bundled in). Its types
 * are the element's attributes as properties, without Lit's: a page that
 * uses it needs no Lit of its own.
 */
import { EMBED_VERSION as VERSION, RankingBoardElement as Element } from './board-element.js'

/** The element's properties, each also an attribute (apiKey: api-key). */
export interface RankingBoard extends HTMLElement {
  /** The game's id (required). */
  game: string
  /** A public API key of the game (required). */
  apiKey: string
  /** A named board's id; unset: the game's own board. */
  board: string | undefined
  /** all (the default), daily, weekly or monthly. */
  period: string | undefined
  /** Entries shown, 1 to 100 (default 10). */
  limit: number
  /** A player whose neighbourhood is shown under the top, their row marked. */
  around: string | undefined
  /** Whether the board follows changes as they happen (the live stream), reconnecting by itself. */
  live: boolean
  /** The service's origin; by default the origin the script was loaded from. */
  service: string | undefined
  /** The locale scores are written in; by default the browser's. */
  locale: string | undefined
  /** The caption; by default the board's name. */
  heading: string | undefined
}

/** The embed's version: its attributes, parts and custom properties are its interface (docs/embed.md#versions). */
export const EMBED_VERSION: string = VERSION

/** The element's class, as customElements holds it. */
export const RankingBoardElement: { new (): RankingBoard, readonly prototype: RankingBoard, readonly version: string } = Element

if (customElements.get('ranking-board') === undefined) customElements.define('ranking-board', Element)

declare global {
  interface HTMLElementTagNameMap { 'ranking-board': RankingBoard }
}
