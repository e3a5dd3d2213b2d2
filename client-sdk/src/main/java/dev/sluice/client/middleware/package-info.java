/**
 * The HTTP gate and its adapters. Start with {@link dev.sluice.client.middleware.RateLimitGate}:
 * the one gate, free of any server API, from a rule (or inline policy), a key taken from the
 * request ({@link dev.sluice.client.middleware.KeyExtractor} over a {@link
 * dev.sluice.client.middleware.GateRequest}) and a cost to an {@link
 * dev.sluice.client.middleware.Admission}: pass, reject, wait, shadow-ban, or the failure policy's
 * answer. The adapters translate their server's request and response to and from those: the Servlet
 * {@link dev.sluice.client.middleware.SluiceFilter}, Javalin's {@link
 * dev.sluice.client.middleware.SluiceJavalin}, Spring MVC's {@link
 * dev.sluice.client.middleware.SluiceHandlerInterceptor} and WebFlux's {@link
 * dev.sluice.client.middleware.SluiceWebFilter}. Headers are the ones every Sluice surface writes,
 * {@link dev.sluice.core.headers.RateLimitHeaders}.
 */
@NullMarked
package dev.sluice.client.middleware;

import org.jspecify.annotations.NullMarked;
