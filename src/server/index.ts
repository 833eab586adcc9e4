export { createAdcpServer, ADCP_SERVER_PATHS } from './create-adcp-server.js';
export type { AdcpServer, CloseOptions, ListeningAdcpServer } from './create-adcp-server.js';
export type {
  AdcpToolDefinition,
  AsyncProgress,
  AsyncWork,
  CreateAdcpServerOptions,
  TaskSupport,
  ToolAnswer,
  ToolContext,
  ToolWebhooks,
  WorkingProgress,
  WebhookSend,
} from './types.js';
export { AdcpToolError } from './tools/tool-error.js';
export { adcpTool } from './tools/adcp-tool.js';
export type { ToolReply, TypedToolDefinition } from './tools/adcp-tool.js';
export { adcpError } from './tools/adcp-error.js';
export type { AdcpErrorOptions, StandardErrorCode } from './tools/adcp-error.js';
export { ADCP_TOOLS, taskSupportFor } from '../core/tool-table.js';
export { ADCP_PROFILE_URI } from '../core/a2a-wire.js';
export type { ServerWebhookOptions } from './tasks/server-webhooks.js';
export type { RequestSigningServerOptions } from './auth/request-signing.js';
export type { AdcpAuthOptions, AuthInfo, OAuthResourceOptions, OAuthTokenVerifier } from './auth/auth-options.js';
export { isAnonymousPrincipal } from './auth/auth-options.js';
export { jwtVerifier } from './auth/jwt-verifier.js';
export type { JwtVerifierOptions } from './auth/jwt-verifier.js';
export { assertTransition, isLifecycleStatus, LIFECYCLES } from './tools/lifecycles.js';
export type { LifecycleName } from './tools/lifecycles.js';
export { pageOf, readPageQuery } from './tools/paginate.js';
export type { PageInfo, PageQuery } from './tools/paginate.js';
