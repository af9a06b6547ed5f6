/**
 * Script-injection payloads. Each one, if it ever ran, would call window.__xss(<its number>).
 * They are sent through every path untrusted text takes; the browser test proves none runs.
 */
const hit = (number: number) => `window.__xss(${number})`;

export const xssPayloads: string[] = [
  `<script>${hit(1)}</script>`,
  `<img src=x onerror="${hit(2)}">`,
  `<svg onload="${hit(3)}"></svg>`,
  `<iframe src="javascript:parent.__xss(4)"></iframe>`,
  `[click me](javascript:${hit(5)})`,
  `<a href="javascript:${hit(6)}">link</a>`,
  `<div hx-on:htmx:load="${hit(7)}">x</div>`,
  `<div data-hx-on:click="${hit(8)}">x</div>`,
  `<details open ontoggle="${hit(9)}">x</details>`,
  `<math><mtext><table><mglyph><style><img src=x onerror="${hit(10)}">`,
  `<noscript><p title="</noscript><img src=x onerror=${hit(11)}>">`,
  `"><script>${hit(12)}</script>`,
  `'><img src=x onerror=${hit(13)}>`,
  `<object data="javascript:${hit(14)}"></object>`,
  `<embed src="javascript:${hit(15)}">`,
  `<form action="javascript:${hit(16)}"><button id=xss-button>go</button></form>`,
  `<input autofocus onfocus="${hit(17)}">`,
  `<video><source onerror="${hit(18)}"></video>`,
  `<body onload="${hit(19)}">`,
  `<meta http-equiv="refresh" content="0;url=javascript:${hit(20)}">`,
  `[data](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX194c3MoMjEpPC9zY3JpcHQ+)`,
  `![image](javascript:${hit(22)})`,
  `<a href="&#106;avascript:${hit(23)}">entity</a>`,
  `<a href="jav&#x09;ascript:${hit(24)}">tab</a>`,
  `[ref link][evil]\n\n[evil]: javascript:${hit(25)}`,
  `<hx-partial hx-target="body" hx-swap="beforeend"><img src=x onerror="${hit(26)}"></hx-partial>`,
  `<div hx-get="/logout" hx-trigger="load">logout attempt 27</div>`,
  `<svg><a xlink:href="javascript:${hit(28)}"><text x="0" y="15">svg link</text></a></svg>`,
  `<template><script>${hit(29)}</script></template><div is="x" onmouseover="${hit(29)}">`,
  `<style>*{background:url("javascript:${hit(30)}")}</style>`,
  `<img src="x\n" onerror="${hit(31)}">`,
  `<a href="#" onclick="${hit(32)}" id="xss-click">click</a>`,
  `<base href="javascript:/${hit(33)}//">`,
  `<script src="data:text/javascript,${hit(34)}"></script>`,
  `[TOOL:send_note]xss ${hit(35)}[/TOOL]`,
  `<div hx-post="/logout" hx-trigger="load" hx-headers='{"x-csrf-token":"guess"}'>36</div>`,
];
