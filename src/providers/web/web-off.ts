/** Why web_search and read_web_page are not offered when WEB=off (the tools page shows it). */
export const webOffReason = 'the web tools are turned off (WEB=off)';
