// The header of the platform's pages (src/routes/site-header.ts): logging out.
// The page is then shown again as the visitor sees it, except the account
// page, which has nothing for a visitor: the front page instead.
(() => {
  'use strict'
  document.querySelector('#logout')?.addEventListener('click', async () => {
    await fetch('/auth/logout', { method: 'POST', credentials: 'same-origin' })
    if (window.location.pathname === '/account') window.location.assign('/')
    else window.location.reload()
  })
})()
