/**
 * HTTP middleware: a {@link dev.sluice.client.middleware.RateLimitGate} (rule + {@link
 * dev.sluice.client.middleware.KeyExtractor}) served as a Servlet {@link
 * dev.sluice.client.middleware.SluiceFilter}, a Javalin before-handler ({@link
 * dev.sluice.client.middleware.SluiceJavalin}) or a Spring {@link
 * dev.sluice.client.middleware.SluiceHandlerInterceptor}. Headers are written by {@link
 * dev.sluice.client.middleware.RateLimitHeaders}.
 */
@NullMarked
package dev.sluice.client.middleware;

import org.jspecify.annotations.NullMarked;
