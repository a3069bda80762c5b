/*
 * The <ranking-games> element (docs/embed.md#games): importing this module
 * defines it, once. Served by the service as /embed/games.js (a classic
 * script whose global is RankingGames).
 */
import { RankingGamesElement as Element } from './games-element.js'

/** The element's properties, each also an attribute. */
export interface RankingGames extends HTMLElement {
  /** top_rated (the default), most_played, players or new. */
  sort: string | undefined
  /** Games per page, 1 to 50 (default 10); "More games" shows the next. */
  limit: number
  /** The service's origin; by default the origin the script was loaded from. */
  service: string | undefined
  /** The locale numbers are written in; by default the browser's. */
  locale: string | undefined
  /** The caption; by default the list's name. */
  heading: string | undefined
}

export const RankingGamesElement: { new (): RankingGames, readonly prototype: RankingGames, readonly version: string } = Element

if (customElements.get('ranking-games') === undefined) customElements.define('ranking-games', Element)

declare global {
  interface HTMLElementTagNameMap { 'ranking-games': RankingGames }
}
