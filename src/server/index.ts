export { PROXY_DEFAULTS, type ProxyOptions, type RunningProxy, startProxy } from './proxy.js';
