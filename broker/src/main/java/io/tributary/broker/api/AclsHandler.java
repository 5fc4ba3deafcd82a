package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.tributary.broker.cluster.AclStore;
import io.tributary.broker.security.AclAuthorizer;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreateAclsResponse;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.utils.internals.SecurityUtils;

/**
 * CreateAcls, DescribeAcls and DeleteAcls (what {@code kafka-acls.sh --bootstrap-server} and {@code Admin.createAcls}
 * send) over the {@link AclStore}. Without an authorizer they answer SECURITY_DISABLED, as Kafka does. Whether the
 * principal may change or read ACLs is decided before, by {@link RequestAuthorizer}. Creation and deletion write to
 * ZooKeeper and run on the admin thread; description reads the authorizer's cache.
 */
final class AclsHandler {

    private static final String CLUSTER_NAME = "kafka-cluster";

    private final Optional<AclStore> store;
    private final Optional<AclAuthorizer> authorizer;

    AclsHandler(Optional<AclStore> store, Optional<AclAuthorizer> authorizer) {
        this.store = store;
        this.authorizer = authorizer;
    }

    AbstractResponse create(CreateAclsRequest request) {
        List<CreateAclsResponseData.AclCreationResult> results = new ArrayList<>();
        List<AclBinding> valid = new ArrayList<>();
        for (var creation : request.aclCreations()) {
            ApiError error;
            if (store.isEmpty()) {
                error = new ApiError(Errors.SECURITY_DISABLED, "No authorizer is configured on the broker");
            } else {
                AclBinding binding = null;
                try {
                    binding = CreateAclsRequest.aclBinding(creation);
                    error = validate(binding);
                } catch (IllegalArgumentException e) {
                    // a pattern type of ANY or MATCH, or a resource type of ANY: filters, not ACLs
                    error = new ApiError(Errors.INVALID_REQUEST, e.getMessage());
                }
                if (error.isSuccess()) {
                    valid.add(binding);
                }
            }
            results.add(new CreateAclsResponseData.AclCreationResult().setErrorCode(error.error().code())
                    .setErrorMessage(error.message()));
        }
        if (!valid.isEmpty()) {
            store.get().add(valid);
        }
        return new CreateAclsResponse(new CreateAclsResponseData().setResults(results));
    }

    /** The ACLs Kafka's ZooKeeper-mode authorizer would store; anything else is INVALID_REQUEST. */
    private static ApiError validate(AclBinding binding) {
        if (binding.isUnknown()) {
            return new ApiError(Errors.INVALID_REQUEST, "unknown resource type, pattern type, operation or "
                    + "permission in " + binding);
        }
        ResourceType type = binding.pattern().resourceType();
        if (type != ResourceType.TOPIC && type != ResourceType.GROUP && type != ResourceType.CLUSTER
                && type != ResourceType.TRANSACTIONAL_ID) {
            return new ApiError(Errors.INVALID_REQUEST, "ACLs on " + type + " are not supported; supported: TOPIC, "
                    + "GROUP, CLUSTER, TRANSACTIONAL_ID");
        }
        PatternType pattern = binding.pattern().patternType();
        if (pattern != PatternType.LITERAL && pattern != PatternType.PREFIXED) {
            return new ApiError(Errors.INVALID_REQUEST, "pattern type must be LITERAL or PREFIXED, not " + pattern);
        }
        String name = binding.pattern().name();
        if (!AclStore.isStorable(binding.pattern())) {
            return new ApiError(Errors.INVALID_REQUEST, "resource name must be non-empty, without '/' and valid in a "
                    + "ZooKeeper path: " + name);
        }
        if (type == ResourceType.CLUSTER && !(name.equals(CLUSTER_NAME) && pattern == PatternType.LITERAL)) {
            return new ApiError(Errors.INVALID_REQUEST, "the cluster resource is LITERAL " + CLUSTER_NAME);
        }
        if (binding.entry().operation() == AclOperation.ANY
                || binding.entry().permissionType() == AclPermissionType.ANY) {
            return new ApiError(Errors.INVALID_REQUEST, "operation and permission must be specific: " + binding);
        }
        try {
            SecurityUtils.parseKafkaPrincipal(binding.entry().principal());
        } catch (IllegalArgumentException e) {
            return new ApiError(Errors.INVALID_REQUEST, "principal must be Type:name: "
                    + binding.entry().principal());
        }
        return ApiError.NONE;
    }

    AbstractResponse describe(DescribeAclsRequest request) {
        DescribeAclsResponseData data = new DescribeAclsResponseData();
        if (authorizer.isEmpty()) {
            data.setErrorCode(Errors.SECURITY_DISABLED.code())
                    .setErrorMessage("No authorizer is configured on the broker");
        } else if (request.filter().isUnknown()) {
            data.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("unknown resource type, pattern type, operation or permission in the filter");
        } else {
            List<AclBinding> matching = authorizer.get().bindings().stream()
                    .filter(request.filter()::matches).toList();
            data.setResources(DescribeAclsResponse.aclsResources(matching));
        }
        return new DescribeAclsResponse(data, request.version());
    }

    AbstractResponse delete(DeleteAclsRequest request) {
        List<DeleteAclsResponseData.DeleteAclsFilterResult> results = new ArrayList<>();
        if (store.isEmpty()) {
            request.filters().forEach(f -> results.add(new DeleteAclsResponseData.DeleteAclsFilterResult()
                    .setErrorCode(Errors.SECURITY_DISABLED.code())
                    .setErrorMessage("No authorizer is configured on the broker")));
        } else {
            // A filter with unknown values matches nothing and is answered INVALID_REQUEST, as in Kafka.
            List<AclBindingFilter> known = request.filters().stream().filter(f -> !f.isUnknown()).toList();
            java.util.Iterator<List<AclBinding>> deletions = store.get().delete(known).iterator();
            for (AclBindingFilter filter : request.filters()) {
                if (filter.isUnknown()) {
                    results.add(new DeleteAclsResponseData.DeleteAclsFilterResult()
                            .setErrorCode(Errors.INVALID_REQUEST.code())
                            .setErrorMessage("unknown resource type, pattern type, operation or permission"));
                    continue;
                }
                List<DeleteAclsResponseData.DeleteAclsMatchingAcl> matching = new ArrayList<>();
                deletions.next().forEach(binding -> matching.add(DeleteAclsResponse.matchingAcl(binding,
                        ApiError.NONE)));
                results.add(new DeleteAclsResponseData.DeleteAclsFilterResult().setMatchingAcls(matching));
            }
        }
        return new DeleteAclsResponse(new DeleteAclsResponseData().setFilterResults(results), request.version());
    }
}
