package io.tributary.broker.api;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * ApiVersions: the truthful list of implemented APIs and versions. A request at a version newer than this broker
 * knows is answered UNSUPPORTED_VERSION with the full list (the network layer writes that answer at v0), so the
 * client can retry at a version both sides have.
 */
final class ApiVersionsHandler {

    private final SupportedApis supported;

    ApiVersionsHandler(SupportedApis supported) {
        this.supported = supported;
    }

    AbstractResponse handle(RequestHeader header) {
        Errors error = supported.isSupported(ApiKeys.API_VERSIONS, header.apiVersion())
                ? Errors.NONE : Errors.UNSUPPORTED_VERSION;
        return new ApiVersionsResponse(new ApiVersionsResponseData()
                .setErrorCode(error.code())
                .setApiKeys(supported.toCollection())
                .setThrottleTimeMs(0));
    }
}
