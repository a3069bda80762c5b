/** The embeds' version (docs/embed.md#versions): the attributes, parts and custom properties of <ranking-board> and <ranking-games> are its interface. */
export const EMBED_VERSION = '1.0.0'
