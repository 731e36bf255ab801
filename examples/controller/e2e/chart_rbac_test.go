//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/napkit/napkit/examples/controller/internal/simnodes"
)

// auditEvent is the part of an audit.k8s.io/v1 Event the test reads.
type auditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef      *auditObjectRef `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

type auditObjectRef struct {
	Resource    string `json:"resource"`
	Subresource string `json:"subresource"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	APIGroup    string `json:"apiGroup"`
}

// rbacRules is charts/napkit/rbac/rules.yaml: the controller's ClusterRole's rules, the release
// namespace's Role's and the system namespace's Role's; and, granted only under --simulate, the
// simulated kubelets' ClusterRole's and their node-Lease namespace's Role's.
type rbacRules struct {
	ClusterRules             []rbacRule `json:"clusterRules"`
	NamespaceRules           []rbacRule `json:"namespaceRules"`
	SystemNamespaceRules     []rbacRule `json:"systemNamespaceRules"`
	SimulationRules          []rbacRule `json:"simulationRules"`
	SimulationNodeLeaseRules []rbacRule `json:"simulationNodeLeaseRules"`
}

// nodeLeaseNamespace holds the (simulated) kubelets' node Leases.
const nodeLeaseNamespace = "kube-node-lease"

// ruleScope is one rule set: whose requests (the simulated kubelets' or the controller's), and in
// which namespace ("" for the ClusterRole).
type ruleScope struct {
	kubelets  bool
	namespace string
	rules     *[]rbacRule
}

// scopes lists r's rule sets.
func (r *rbacRules) scopes() []ruleScope {
	return []ruleScope{
		{false, "", &r.ClusterRules}, {false, chartNamespace, &r.NamespaceRules}, {false, chartSystemNamespace, &r.SystemNamespaceRules},
		{true, "", &r.SimulationRules}, {true, nodeLeaseNamespace, &r.SimulationNodeLeaseRules},
	}
}

// fromKubelets tells the simulated kubelets' requests (their client's user agent) from the
// controller's.
func fromKubelets(e auditEvent) bool { return strings.HasPrefix(e.UserAgent, simnodes.UserAgent) }

type rbacRule struct {
	APIGroups     []string `json:"apiGroups"`
	ResourceNames []string `json:"resourceNames,omitempty"`
	Resources     []string `json:"resources"`
	Verbs         []string `json:"verbs"`
}

// readAudit returns the user's requests (one per completed request) from the JSON-lines audit log.
func readAudit(t *testing.T, path, user string) []auditEvent {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e auditEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "audit line %q", sc.Text())
		if e.User.Username == user && (e.Stage == "ResponseComplete" || e.Stage == "Panic" || e.Stage == "ResponseStarted" && e.Verb == "watch") {
			out = append(out, e)
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// resourceUse is what the audit shows of one API group and resource: the verbs, the namespaces
// ("" for cluster-scoped or all-namespace requests) and the object names.
type resourceUse struct {
	verbs, namespaces, names map[string]bool
}

// rulesFromAudit groups the requests into rules, the simulated kubelets' apart from the
// controller's, one per API group and resource with the sorted verbs (a watch brings list). A
// resource requested only in one namespace that has a Role (the release namespace's Lease, the
// system namespace's ConfigMap, the kubelets' node Leases) goes to that Role, narrowed to the
// objects' names when every verb allows that; everything else, a resource seen cluster-wide or in
// other namespaces, goes to the ClusterRole.
func rulesFromAudit(t *testing.T, events []auditEvent) rbacRules {
	t.Helper()
	var out rbacRules
	for _, kubelets := range []bool{false, true} {
		var mine []auditEvent
		for _, e := range events {
			if fromKubelets(e) == kubelets {
				mine = append(mine, e)
			}
		}
		byNamespace := map[string]*[]rbacRule{}
		for _, sc := range out.scopes() {
			if sc.kubelets == kubelets {
				byNamespace[sc.namespace] = sc.rules
			}
		}
		deriveRules(t, mine, byNamespace)
	}
	return out
}

// deriveRules adds the rules events need to the rule set of their namespace (byNamespace[""]: the
// ClusterRole's).
func deriveRules(t *testing.T, events []auditEvent, byNamespace map[string]*[]rbacRule) {
	t.Helper()
	type key struct{ group, resource string }
	uses := map[key]*resourceUse{}
	for _, e := range events {
		if e.ObjectRef == nil {
			t.Logf("non-resource request %s %s (code %v): granted to every authenticated user by system:discovery", e.Verb, e.RequestURI, e.ResponseStatus)
			continue
		}
		res := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			res += "/" + e.ObjectRef.Subresource
		}
		k := key{e.ObjectRef.APIGroup, res}
		u := uses[k]
		if u == nil {
			u = &resourceUse{verbs: map[string]bool{}, namespaces: map[string]bool{}, names: map[string]bool{}}
			uses[k] = u
		}
		u.verbs[e.Verb], u.namespaces[e.ObjectRef.Namespace], u.names[e.ObjectRef.Name] = true, true, true
		if e.Verb == "watch" {
			// client-go's informers list through a streaming watch (sendInitialEvents) where the
			// API server offers it and fall back to LIST then WATCH where it does not (older or
			// differently configured clusters), so every watched resource needs list too.
			u.verbs["list"] = true
		}
	}
	for k, u := range uses {
		rule := rbacRule{APIGroups: []string{k.group}, Resources: []string{k.resource}, Verbs: sortedKeys(u.verbs)}
		target := byNamespace[""]
		if only := sortedKeys(u.namespaces); len(only) == 1 && only[0] != "" && byNamespace[only[0]] != nil {
			target = byNamespace[only[0]]
			if namesNarrow(u) {
				rule.ResourceNames = sortedKeys(u.names)
			}
		}
		*target = append(*target, rule)
	}
	for _, rules := range byNamespace {
		sort.Slice(*rules, func(i, j int) bool {
			a, b := (*rules)[i], (*rules)[j]
			return a.APIGroups[0] < b.APIGroups[0] || a.APIGroups[0] == b.APIGroups[0] && a.Resources[0] < b.Resources[0]
		})
	}
}

// namesNarrow: RBAC's resourceNames restrict get, update, patch and delete of named objects, not
// create, list or watch.
func namesNarrow(u *resourceUse) bool {
	for v := range u.verbs {
		if !slices.Contains([]string{"get", "update", "patch", "delete"}, v) {
			return false
		}
	}
	return !u.names[""]
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// expand lists rules as sorted "who namespace group resource verb [names]" lines, so rule grouping
// does not matter.
func expand(r rbacRules) []string {
	var out []string
	for _, sc := range r.scopes() {
		scope := fmt.Sprintf("kubelets=%t namespace=%q", sc.kubelets, sc.namespace)
		for _, rule := range *sc.rules {
			names := ""
			if len(rule.ResourceNames) > 0 {
				names = fmt.Sprint(rule.ResourceNames)
			}
			for _, g := range rule.APIGroups {
				for _, res := range rule.Resources {
					for _, v := range rule.Verbs {
						out = append(out, strings.TrimSpace(fmt.Sprintf("%s %q %s %s %s", scope, g, res, v, names)))
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// writeRules rewrites the chart's rules file, keeping its header comment.
func writeRules(t *testing.T, path string, rules rbacRules) {
	t.Helper()
	old, err := os.ReadFile(path)
	require.NoError(t, err)
	var header strings.Builder
	for _, line := range strings.SplitAfter(string(old), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		header.WriteString(line)
	}
	body, err := yaml.Marshal(rules)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append([]byte(header.String()), body...), 0o644))
}

func readRules(t *testing.T, path string) rbacRules {
	t.Helper()
	var r rbacRules
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, yaml.UnmarshalStrict(data, &r))
	return r
}

// unionRules merges two rule sets, one rule per scope, group and resource, by turning each rule
// back into the requests it allows and deriving rules from them.
func unionRules(t *testing.T, a, b rbacRules) rbacRules {
	t.Helper()
	var events []auditEvent
	for _, r := range []rbacRules{a, b} {
		for _, sc := range r.scopes() {
			userAgent := "controller"
			if sc.kubelets {
				userAgent = simnodes.UserAgent
			}
			for _, rule := range *sc.rules {
				names := rule.ResourceNames
				if len(names) == 0 {
					names = []string{""}
				}
				for _, g := range rule.APIGroups {
					for _, res := range rule.Resources {
						resource, sub, _ := strings.Cut(res, "/")
						for _, v := range rule.Verbs {
							for _, name := range names {
								events = append(events, auditEvent{Verb: v, UserAgent: userAgent, ObjectRef: &auditObjectRef{
									Resource: resource, Subresource: sub, APIGroup: g, Namespace: sc.namespace, Name: name}})
							}
						}
					}
				}
			}
		}
	}
	return rulesFromAudit(t, events)
}

// ruleDiff lists the audited rule lines the file lacks (missing) and the file's lines no request
// used (unused).
func ruleDiff(file, audited []string) (missing, unused []string) {
	for _, l := range audited {
		if !slices.Contains(file, l) {
			missing = append(missing, l)
		}
	}
	for _, l := range file {
		if !slices.Contains(audited, l) {
			unused = append(unused, l)
		}
	}
	return missing, unused
}
