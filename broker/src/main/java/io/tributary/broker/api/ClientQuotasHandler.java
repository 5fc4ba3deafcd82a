package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.tributary.broker.cluster.ClientQuotaStore;
import io.tributary.broker.quota.QuotaEntity;
import io.tributary.broker.quota.QuotaType;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterClientQuotasRequest;
import org.apache.kafka.common.requests.AlterClientQuotasResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;
import org.apache.kafka.common.utils.internals.Sanitizer;

/**
 * DescribeClientQuotas and AlterClientQuotas (KIP-546), what {@code kafka-configs.sh --entity-type users|clients}
 * and {@code Admin.describeClientQuotas}/{@code alterClientQuotas} send, over the quotas of {@link ClientQuotaStore}.
 * Entities are a user, a client id, or both; a null name is the default entity ({@code <default>}). Quota keys:
 * {@code producer_byte_rate} and {@code consumer_byte_rate} (whole numbers, stored as longs as Kafka stores them)
 * and {@code request_percentage}; anything else, an {@code ip} entity, or a value not above 0 is refused with
 * INVALID_REQUEST and a message, per entity.
 *
 * <p>Describe matches as Kafka's ZooKeeper mode: per entity type an EXACT name, the DEFAULT entity, or any
 * SPECIFIED one (the default included); with {@code strict} an entity may have no other types than the filter
 * names. Alter blocks on ZooKeeper: the dispatcher runs it off the request-handler threads.
 */
final class ClientQuotasHandler {

    private final ClientQuotaStore store;

    ClientQuotasHandler(ClientQuotaStore store) {
        this.store = store;
    }

    AbstractResponse describe(DescribeClientQuotasRequest request) {
        DescribeClientQuotasRequestData data = request.data();
        DescribeClientQuotasResponseData response = new DescribeClientQuotasResponseData()
                .setErrorCode(Errors.NONE.code());
        Map<String, DescribeClientQuotasRequestData.ComponentData> filter = new HashMap<>();
        for (DescribeClientQuotasRequestData.ComponentData component : data.components()) {
            String type = component.entityType();
            if (!type.equals(ClientQuotaEntity.USER) && !type.equals(ClientQuotaEntity.CLIENT_ID)
                    && !type.equals(ClientQuotaEntity.IP)) {
                return describeError("Unexpected entity type " + type);
            }
            if (filter.put(type, component) != null) {
                return describeError("Duplicate " + type + " filter component entity type");
            }
            byte match = component.matchType();
            if (match == DescribeClientQuotasRequest.MATCH_TYPE_EXACT && component.match() == null) {
                return describeError("Unexpected null match for an EXACT " + type + " filter component");
            }
            if (match != DescribeClientQuotasRequest.MATCH_TYPE_EXACT
                    && match != DescribeClientQuotasRequest.MATCH_TYPE_DEFAULT
                    && match != DescribeClientQuotasRequest.MATCH_TYPE_SPECIFIED) {
                return describeError("Unexpected match type " + match);
            }
        }
        if (filter.containsKey(ClientQuotaEntity.IP)) {
            // No IP (connection rate) quotas exist here, so none match.
            return new DescribeClientQuotasResponse(response.setEntries(List.of()));
        }
        List<DescribeClientQuotasResponseData.EntryData> entries = new ArrayList<>();
        store.quotas().values().forEach((entity, values) -> {
            if (matches(filter.get(ClientQuotaEntity.USER), entity.user(), data.strict())
                    && matches(filter.get(ClientQuotaEntity.CLIENT_ID), entity.clientId(), data.strict())) {
                DescribeClientQuotasResponseData.EntryData entry = new DescribeClientQuotasResponseData.EntryData();
                if (entity.user() != null) {
                    entry.entity().add(entityData(ClientQuotaEntity.USER, entity.user()));
                }
                if (entity.clientId() != null) {
                    entry.entity().add(entityData(ClientQuotaEntity.CLIENT_ID, entity.clientId()));
                }
                values.forEach((key, value) -> entry.values().add(
                        new DescribeClientQuotasResponseData.ValueData().setKey(key).setValue(value)));
                entries.add(entry);
            }
        });
        return new DescribeClientQuotasResponse(response.setEntries(entries));
    }

    /** Whether an entity's part (a znode name, or null if it has none) passes a filter component (or none). */
    private static boolean matches(DescribeClientQuotasRequestData.ComponentData component, String name,
                                   boolean strict) {
        if (component == null) {
            return name == null || !strict;
        }
        return switch (component.matchType()) {
            case DescribeClientQuotasRequest.MATCH_TYPE_EXACT -> name != null && component.match() != null
                    && name.equals(Sanitizer.sanitize(component.match()));
            case DescribeClientQuotasRequest.MATCH_TYPE_DEFAULT -> QuotaEntity.DEFAULT.equals(name);
            default -> name != null; // SPECIFIED: any name, the default included
        };
    }

    private static DescribeClientQuotasResponseData.EntityData entityData(String type, String znodeName) {
        return new DescribeClientQuotasResponseData.EntityData().setEntityType(type)
                .setEntityName(QuotaEntity.DEFAULT.equals(znodeName) ? null : Sanitizer.desanitize(znodeName));
    }

    private static AbstractResponse describeError(String message) {
        return new DescribeClientQuotasResponse(new DescribeClientQuotasResponseData()
                .setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(message).setEntries(null));
    }

    AbstractResponse alter(AlterClientQuotasRequest request) {
        AlterClientQuotasResponseData response = new AlterClientQuotasResponseData();
        for (AlterClientQuotasRequestData.EntryData entry : request.data().entries()) {
            AlterClientQuotasResponseData.EntryData result = new AlterClientQuotasResponseData.EntryData();
            for (AlterClientQuotasRequestData.EntityData entity : entry.entity()) {
                result.entity().add(new AlterClientQuotasResponseData.EntityData()
                        .setEntityType(entity.entityType()).setEntityName(entity.entityName()));
            }
            ApiError error;
            try {
                alter(entry, request.data().validateOnly());
                error = ApiError.NONE;
            } catch (RuntimeException e) {
                error = ApiError.fromThrowable(e);
            }
            response.entries().add(result.setErrorCode(error.error().code()).setErrorMessage(error.message()));
        }
        return new AlterClientQuotasResponse(response);
    }

    private void alter(AlterClientQuotasRequestData.EntryData entry, boolean validateOnly) {
        String user = null;
        String clientId = null;
        Set<String> types = new HashSet<>();
        for (AlterClientQuotasRequestData.EntityData entity : entry.entity()) {
            if (!types.add(entity.entityType())) {
                throw new InvalidRequestException("Duplicate " + entity.entityType() + " entity type");
            }
            String name = entity.entityName() == null ? QuotaEntity.DEFAULT : Sanitizer.sanitize(entity.entityName());
            switch (entity.entityType()) {
                case ClientQuotaEntity.USER -> user = name;
                case ClientQuotaEntity.CLIENT_ID -> clientId = name;
                case ClientQuotaEntity.IP -> throw new InvalidRequestException("IP (connection rate) quotas are not "
                        + "supported by this broker");
                default -> throw new InvalidRequestException("Unhandled client quota entity type: "
                        + entity.entityType());
            }
        }
        if (user == null && clientId == null) {
            throw new InvalidRequestException("Invalid empty client quota entity");
        }
        Map<String, String> set = new HashMap<>();
        Set<String> remove = new HashSet<>();
        for (AlterClientQuotasRequestData.OpData op : entry.ops()) {
            QuotaType type = QuotaType.forKey(op.key());
            if (type == null) {
                throw new InvalidRequestException("Invalid configuration key " + op.key() + ": the client quota keys "
                        + "are producer_byte_rate, consumer_byte_rate and request_percentage");
            }
            if (op.remove()) {
                remove.add(op.key());
            } else {
                set.put(op.key(), value(type, op.value()));
            }
        }
        store.alter(new QuotaEntity(user, clientId), set, remove, validateOnly);
    }

    /** The value as stored: a whole number for the byte rates (Kafka's LONG quotas), a double otherwise. */
    private static String value(QuotaType type, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new InvalidRequestException("Configuration " + type.key() + " must be above 0: " + value);
        }
        if (!type.wholeNumber()) {
            return Double.toString(value);
        }
        double epsilon = 1e-6;
        long whole = (long) (value + epsilon);
        if (Math.abs(whole - value) > epsilon) {
            throw new InvalidRequestException("Configuration " + type.key() + " must be a LONG value: " + value);
        }
        return Long.toString(whole);
    }
}
