package io.tributary.broker.api;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs this broker implements and the version range of each: what ApiVersions advertises, and what the network
 * layer lets through. Every range is the codec's full stable range (kafka-clients 4.4), which covers the Java client
 * 4.4, librdkafka 2.x and kafkajs 2.x; a handler fills each field only at the versions that have it.
 */
final class SupportedApis {

    private final Map<ApiKeys, ApiVersion> versions = new EnumMap<>(ApiKeys.class);

    SupportedApis(Set<ApiKeys> implemented) {
        for (ApiKeys api : implemented) {
            // toApiVersion(false) leaves out versions the codec marks unstable (e.g. InitProducerId v6).
            ApiVersion version = api.toApiVersion(false)
                    .orElseThrow(() -> new IllegalStateException("no stable version of " + api));
            versions.put(api, version);
        }
    }

    boolean isSupported(ApiKeys api, short version) {
        ApiVersion range = versions.get(api);
        return range != null && version >= range.minVersion() && version <= range.maxVersion();
    }

    Map<ApiKeys, ApiVersion> versions() {
        return Collections.unmodifiableMap(versions);
    }

    /** A fresh collection for a response (a message collection element belongs to one collection only). */
    ApiVersionCollection toCollection() {
        ApiVersionCollection collection = new ApiVersionCollection();
        for (ApiVersion version : versions.values()) {
            collection.add(version.duplicate());
        }
        return collection;
    }
}
