/**
 * The written form of a policy: the fields a rules file, {@code PUT /v1/rules/{name}}, an inline
 * check over REST and the Helm chart's values share, defined once ({@link
 * dev.sluice.core.spec.PolicySpec}, {@link dev.sluice.core.spec.LimitSpec}), with one conversion
 * into a validated {@link dev.sluice.core.Policy} whose errors name the field as it was written
 * ({@code limits[1].window}).
 *
 * <p>Start with {@link dev.sluice.core.spec.PolicySpec}.
 */
@NullMarked
package dev.sluice.core.spec;

import org.jspecify.annotations.NullMarked;
