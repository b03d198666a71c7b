// Package deploy checks the Kubernetes manifests and the Grafana dashboard
// against the code: the manifests are rendered with kustomize, decoded
// strictly into the Kubernetes API types, and every flag, environment
// variable, probe, metric and stream name they use is looked up in the
// real configuration, a running process and pkg/bus.
package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

var overlays = []string{"k8s/overlays/single", "k8s/overlays/distributed"}

// rendered is one overlay's objects, decoded strictly.
type rendered struct {
	deployments     []*appsv1.Deployment
	statefulSets    []*appsv1.StatefulSet
	services        []*corev1.Service
	configMaps      map[string]*corev1.ConfigMap
	pdbs            []*policyv1.PodDisruptionBudget
	hpas            []*autoscalingv2.HorizontalPodAutoscaler
	netpols         []*networkingv1.NetworkPolicy
	scaledObjects   []*scaledObject
	serviceMonitors []*serviceMonitor
	rules           []*prometheusRule
}

// render builds an overlay with the kustomize API and decodes every object
// into its type; an unknown field or kind fails.
func render(t *testing.T, dir string) *rendered {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize %s: %v", dir, err)
	}
	r := &rendered{configMaps: map[string]*corev1.ConfigMap{}}
	for _, res := range rm.Resources() {
		raw, err := res.MarshalJSON()
		if err != nil {
			t.Fatalf("%s: %v", res.CurId(), err)
		}
		kind := res.GetKind()
		api := res.GetApiVersion()
		var into any
		switch api + " " + kind {
		case "apps/v1 Deployment":
			o := &appsv1.Deployment{}
			r.deployments, into = append(r.deployments, o), o
		case "apps/v1 StatefulSet":
			o := &appsv1.StatefulSet{}
			r.statefulSets, into = append(r.statefulSets, o), o
		case "v1 Service":
			o := &corev1.Service{}
			r.services, into = append(r.services, o), o
		case "v1 ConfigMap":
			o := &corev1.ConfigMap{}
			r.configMaps[res.GetName()], into = o, o
		case "v1 ServiceAccount":
			into = &corev1.ServiceAccount{}
		case "policy/v1 PodDisruptionBudget":
			o := &policyv1.PodDisruptionBudget{}
			r.pdbs, into = append(r.pdbs, o), o
		case "autoscaling/v2 HorizontalPodAutoscaler":
			o := &autoscalingv2.HorizontalPodAutoscaler{}
			r.hpas, into = append(r.hpas, o), o
		case "networking.k8s.io/v1 NetworkPolicy":
			o := &networkingv1.NetworkPolicy{}
			r.netpols, into = append(r.netpols, o), o
		case "keda.sh/v1alpha1 ScaledObject":
			o := &scaledObject{}
			r.scaledObjects, into = append(r.scaledObjects, o), o
		case "monitoring.coreos.com/v1 ServiceMonitor":
			o := &serviceMonitor{}
			r.serviceMonitors, into = append(r.serviceMonitors, o), o
		case "monitoring.coreos.com/v1 PrometheusRule":
			o := &prometheusRule{}
			r.rules, into = append(r.rules, o), o
		default:
			t.Fatalf("%s: %s %s is not a kind these checks know; add it to render", dir, api, kind)
		}
		if err := strictJSON(raw, into); err != nil {
			t.Errorf("%s: %s %s: %v", dir, kind, res.GetName(), err)
		}
	}
	return r
}

// strictJSON decodes data into v, failing on fields v does not have.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("strict decode: %w", err)
	}
	return nil
}

// podTemplate is a workload's name and pod template.
type podTemplate struct {
	kind, name string
	labels     map[string]string
	spec       *corev1.PodSpec
}

func (r *rendered) workloads() []podTemplate {
	var out []podTemplate
	for _, d := range r.deployments {
		out = append(out, podTemplate{"Deployment", d.Name, d.Spec.Template.Labels, &d.Spec.Template.Spec})
	}
	for _, s := range r.statefulSets {
		out = append(out, podTemplate{"StatefulSet", s.Name, s.Spec.Template.Labels, &s.Spec.Template.Spec})
	}
	return out
}
