//! The world language: variables, both substitution layers, `<for>`, `<if>`, includes,
//! class/instance precedence, auto-naming, units.

use crate::util::*;
use passerby_world::*;
use std::f64::consts::FRAC_PI_2;

const BOX: &str = r#"<geometry type="box" lx="1" ly="1" lz="1"/>"#;

fn block_names(w: &World) -> Vec<&str> {
    w.blocks.iter().map(|b| b.name.as_str()).collect()
}

#[test]
fn variables_and_expressions_at_value_time() {
    let w = world(load(
        r#"<variable name="CEILING" value="6.0"/>
           <variable name="TWICE" value="$f{CEILING*2}"/>
           <element class="horizontal_plane"><z>$f{CEILING}</z><x_max>${TWICE}</x_max></element>
           <element class="horizontal_plane"><z>${UNSET|1.5}</z></element>"#,
    ));
    let WorldElement::HorizontalPlane(p) = &w.elements[0].element else {
        panic!()
    };
    assert_eq!((p.z, p.extent[1]), (6.0, 12.0));
    let WorldElement::HorizontalPlane(p) = &w.elements[1].element else {
        panic!()
    };
    assert_eq!(
        p.z, 1.5,
        "`${{X|default}}` works in the main file too (MVSim throws)"
    );
    assert_eq!(w.variables["TWICE"], "12");
}

#[test]
fn for_loops_are_child_major_and_leave_the_variable_defined() {
    let w = world(load(&format!(
        r#"<for var="i" from="0" to="2">
             <block name="a${{i}}"><init_pose>$f{{i}} 0 0</init_pose>{BOX}</block>
             <block name="b${{i}}"><init_pose>$f{{i}} 1 0</init_pose>{BOX}</block>
           </for>
           <variable name="after" value="${{i}}"/>
           <for var="x" from="0" to="1"><for var="y" from="5" to="6">
             <block name="n${{x}}_${{y}}"><init_pose>0 0 0</init_pose>{BOX}</block>
           </for></for>
           <for var="k" from="3" to="2"><block><init_pose>0 0 0</init_pose>{BOX}</block></for>"#
    )));
    assert_eq!(
        block_names(&w),
        [
            "a0", "a1", "a2", "b0", "b1", "b2", "n0_5", "n0_6", "n1_5", "n1_6"
        ]
    );
    assert_eq!(w.variables["after"], "2");
    assert_eq!(w.blocks[4].common.init_pose.x, 1.0);
}

#[test]
fn if_follows_mvsim_truthiness() {
    let w = world(load(&format!(
        r#"<variable name="iY" value="4"/>
           <if condition="0.5"><block name="half"><init_pose>0 0 0</init_pose>{BOX}</block></if>
           <if condition="1.5"><block name="one_and_half"><init_pose>0 0 0</init_pose>{BOX}</block></if>
           <if condition="yes"><block name="yes"><init_pose>0 0 0</init_pose>{BOX}</block></if>
           <if condition="$f{{if(iY<=3 or iY>=6, 1, 0)}}"><block name="no"><init_pose>0 0 0</init_pose>{BOX}</block></if>
           <if condition="$f{{iY == 4}}"><block name="eq"><init_pose>0 0 0</init_pose>{BOX}</block></if>"#
    )));
    assert_eq!(block_names(&w), ["one_and_half", "yes", "eq"]);
}

#[test]
fn includes_substitute_attributes_defaults_and_the_file_directory() {
    let scratch = temp_dir();
    let dir = scratch.path().to_path_buf();
    std::fs::create_dir_all(dir.join("defs/sub")).unwrap();
    std::fs::write(
        dir.join("defs/thing.xml"),
        r#"<!-- ${UNDEFINED_IN_COMMENT} is inert -->
<block name="${name}"><init_pose>${x|7} 0 ${yaw|90}</init_pose><mass>${mass|3}</mass>
  <visual><model_uri>${MVSIM_CURRENT_FILE_DIRECTORY}/sub/m.dae</model_uri></visual></block>
<block name="${name}_twin"><init_pose>0 0 0</init_pose><visual><model_uri>sub/rel.dae</model_uri></visual></block>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("defs/plain.xml"),
        r#"<variable name="FROM_PLAIN" value="yes"/>"#,
    )
    .unwrap();
    let loaded = load_in(
        &dir,
        r#"<mvsim_world version="1.0">
             <for var="i" from="1" to="2"><include file="defs/thing.xml" name="t${i}" x="$f{i*10}"/></for>
             <include file="defs/plain"/>
           </mvsim_world>"#,
    );
    assert_diag(
        &loaded,
        "main.world.xml:3:29: warning: include file `defs/plain` does not exist; using",
    );
    let w = world(loaded);
    assert_eq!(block_names(&w), ["t1", "t1_twin", "t2", "t2_twin"]);
    let t2 = &w.blocks[2];
    assert_eq!(
        t2.common.init_pose.x, 20.0,
        "attribute values are substituted raw, then evaluated at value time"
    );
    assert!((t2.common.init_pose.yaw - FRAC_PI_2).abs() < 1e-12);
    assert_eq!(t2.mass, 3.0);
    let defs = dir.join("defs").display().to_string();
    assert_eq!(t2.visuals[0].model_uri, format!("{defs}/sub/m.dae"));
    assert_eq!(
        w.blocks[1].visuals[0].model_uri,
        format!("{defs}/sub/rel.dae"),
        "relative to the included file"
    );
    assert_eq!(w.variables["FROM_PLAIN"], "yes");
}

#[test]
fn vehicles_take_sensors_from_includes_instance_and_class() {
    let scratch = temp_dir();
    let dir = scratch.path().to_path_buf();
    std::fs::write(
        dir.join("lidar.sensor.xml"),
        r#"<sensor class="lidar3d" name="${sensor_name|lidar1}">
  <horz_nrays>$f{(60.0/${sensor_rpm|600})/55.296e-6}</horz_nrays>
  <sensor_period>$f{60.0/${sensor_rpm|600}}</sensor_period>
  <publish enabled="true"><publish_topic>/${PARENT_NAME}/${NAME}</publish_topic></publish>
</sensor>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("robot.vehicle.xml"),
        r#"<vehicle:class name="robot">
  <dynamics class="differential"><controller class="${controller|twist_ideal}"/></dynamics>
  <if condition="${default_sensors|true}">
    <sensor class="imu" name="imu_class"/>
  </if>
</vehicle:class>"#,
    )
    .unwrap();
    let w = world(load_in(
        &dir,
        r#"<mvsim_world version="1.0">
             <include file="robot.vehicle.xml" controller="twist_pid"/>
             <vehicle name="r1" class="robot"><init_pose>0 0 0</init_pose>
               <include file="lidar.sensor.xml" sensor_rpm="1200" sensor_name="top"/>
               <sensor class="gnss" name="gps"/>
             </vehicle>
             <vehicle class="robot"><init_pose>1 0 0</init_pose></vehicle>
           </mvsim_world>"#,
    ));
    let r1 = &w.vehicles[0];
    assert_eq!(r1.dynamics.controller.class, "twist_pid");
    let names: Vec<&str> = r1.sensors.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["top", "gps", "imu_class"]);
    let SensorKind::Lidar3d(l) = &r1.sensors[0].kind else {
        panic!()
    };
    assert_eq!(
        l.horz_nrays, 904,
        "%g gives 904.225, the integer parameter truncates"
    );
    assert_eq!(r1.sensors[0].period, 0.05);
    assert_eq!(r1.sensors[0].publish.as_ref().unwrap().topic, "/r1/top");
    assert_eq!(
        w.vehicles[1].name, "veh2",
        "auto-names count vehicles from 1"
    );
}

#[test]
fn instance_parameters_override_the_class() {
    let w = world(load(&format!(
        r#"<block:class name="crate"><mass>5</mass><color>#00ff00</color>{BOX}<label>box</label></block:class>
           <block class="crate"><init_pose>0 0 0</init_pose><mass>7</mass></block>
           <block class="crate"><init_pose>0 0 0</init_pose></block>
           <actor:class name="p"><walking_speed>1.0</walking_speed><animation_walk>W</animation_walk></actor:class>
           <actor class="p"><init_pose>0 0 0</init_pose><walking_speed>1.2</walking_speed></actor>"#
    )));
    assert_eq!((w.blocks[0].mass, w.blocks[1].mass), (7.0, 5.0));
    assert_eq!(w.blocks[0].color, Color::rgb(0, 255, 0));
    assert_eq!(w.blocks[0].common.label.as_deref(), Some("box"));
    assert_eq!(block_names(&w), ["block001", "block002"]);
    assert_eq!(
        (
            w.actors[0].walking_speed,
            w.actors[0].animation_walk.as_str()
        ),
        (1.2, "W")
    );
    assert_eq!(w.actors[0].name, "actor001");
}

#[test]
fn angles_are_radians_inside() {
    let w = world(load(
        r#"<actor name="a"><init_pose3d>1 2 3 90 -90 180</init_pose3d><skip_elevation_adjust/><turning_rate>90</turning_rate>
             <path loop="false"><waypoint pause="2" animation="run">5 0 -90</waypoint><waypoint>5 5 1 2 3 4</waypoint></path></actor>
           <actor name="b"><init_pose>0 0 0</init_pose><turning_rate>0</turning_rate></actor>"#,
    ));
    let a = &w.actors[0];
    let p = a.common.init_pose;
    assert!((p.yaw - FRAC_PI_2).abs() < 1e-12 && (p.pitch + FRAC_PI_2).abs() < 1e-12);
    assert_eq!(p.z, 3.0);
    assert!(a.common.init_pose_is_3d);
    assert!((a.turning_rate.unwrap() - FRAC_PI_2).abs() < 1e-12);
    let path = a.path.as_ref().unwrap();
    assert!(!path.looped);
    assert_eq!(path.waypoints[0].animation, WaypointAnimation::Run);
    assert_eq!(path.waypoints[0].pause, 2.0);
    assert!(path.waypoints[1].is_3d);
    assert_eq!(w.actors[1].turning_rate, None, "0 disables the limit");
}

#[test]
fn random_functions_are_seeded() {
    let body = r#"<for var="i" from="1" to="3"><block><init_pose>$f{rand()} $f{randn()} $f{unifrnd(-1, 1)}</init_pose>
                   <geometry type="box"/></block></for>"#;
    let poses = |seed: u64| -> Vec<Pose3> {
        let text = format!("<mvsim_world>{body}</mvsim_world>");
        let opts = passerby_mvsim::LoadOptions {
            seed,
            ..options(&[])
        };
        let loaded = passerby_mvsim::load_world_str(std::path::Path::new("/v/w.xml"), text, &opts);
        world(loaded)
            .blocks
            .iter()
            .map(|b| b.common.init_pose)
            .collect()
    };
    assert_eq!(poses(1), poses(1));
    assert_ne!(poses(1), poses(2));
    assert!(
        poses(1)
            .iter()
            .all(|p| (0.0..1.0).contains(&p.x) && (-1.0..1.0).contains(&p.yaw.to_degrees()))
    );
}

#[test]
fn environment_lookups() {
    let text = r#"<mvsim_world><element class="horizontal_plane"><z>$env{FLOOR_Z}</z></element></mvsim_world>"#;
    let loaded = passerby_mvsim::load_world_str(
        std::path::Path::new("/v/w.xml"),
        text.into(),
        &options(&[("FLOOR_Z", "2.5")]),
    );
    let WorldElement::HorizontalPlane(p) = &world(loaded).elements[0].element else {
        panic!()
    };
    assert_eq!(p.z, 2.5);
}

#[test]
fn the_mvsim_prefix_resolves_to_the_bundled_data() {
    let w = world(load(
        r#"<include file="$(ros2 pkg prefix mvsim)/share/mvsim/definitions/jackal.vehicle.xml" default_sensors="false"/>
           <vehicle name="r1" class="jackal"><init_pose>0 0 0</init_pose>
             <include file="$(ros2 pkg prefix mvsim)/share/mvsim/definitions/ouster-os1.sensor.xml"/></vehicle>"#,
    ));
    let r1 = &w.vehicles[0];
    assert_eq!(r1.dynamics.class, DynamicsClass::Differential4Wheels);
    assert_eq!(r1.dynamics.wheels.len(), 4);
    let SensorKind::Lidar3d(l) = &r1.sensors[0].kind else {
        panic!()
    };
    assert_eq!((l.vert_nrays, l.horz_nrays), (128, 1024));
    assert!(
        std::path::Path::new(&r1.visuals[0].model_uri).is_file(),
        "{}",
        r1.visuals[0].model_uri
    );
}

#[test]
fn globals_gui_lights_georeference() {
    let w = world(load(
        r#"<simul_timestep>2e-3</simul_timestep><gravity>9.8</gravity>
           <gui><cam_point_to>1.5 13</cam_point_to><fov_deg>90</fov_deg></gui>
           <lights><light_azimuth_deg>90</light_azimuth_deg><light_elevation_deg>90</light_elevation_deg></lights>
           <georeference><latitude>36.5</latitude><longitude>-2.25</longitude><world_to_enu_rotation_deg>45</world_to_enu_rotation_deg></georeference>"#,
    ));
    assert_eq!(w.params.simul_timestep, Timestep::Fixed(2e-3));
    assert_eq!(w.effective_timestep(), 2e-3);
    assert_eq!(w.gui.cam_point_to, [1.5, 13.0, 0.0]);
    let dir = w.lights.light_direction();
    assert!(dir[2] + 1.0 < 1e-12, "sun straight up shines straight down");
    let g = w.georeference.as_ref().unwrap();
    assert_eq!((g.latitude_deg, g.longitude_deg), (36.5, -2.25));
    let auto = world(load(
        r#"<sensor class="laser" name="l"><sensor_period>0.002</sensor_period></sensor>"#,
    ));
    assert_eq!(
        auto.effective_timestep(),
        0.002,
        "auto = min(5 ms, shortest sensor period)"
    );
}

#[test]
fn lidar_beams_are_sorted_ascending() {
    let w = world(load(
        r#"<sensor class="lidar3d" name="l"><vert_nrays>3</vert_nrays><vertical_ray_angles>10 -5 0</vertical_ray_angles></sensor>
           <sensor class="lidar3d" name="u"><vert_nrays>3</vert_nrays><vert_fov_degrees>20</vert_fov_degrees></sensor>"#,
    ));
    let SensorKind::Lidar3d(l) = &w.standalone_sensors[0].kind else {
        panic!()
    };
    let deg: Vec<f64> = l
        .beam_elevations()
        .iter()
        .map(|a| a.to_degrees().round())
        .collect();
    assert_eq!(deg, [-5.0, 0.0, 10.0]);
    let SensorKind::Lidar3d(u) = &w.standalone_sensors[1].kind else {
        panic!()
    };
    let deg: Vec<f64> = u
        .beam_elevations()
        .iter()
        .map(|a| a.to_degrees().round())
        .collect();
    assert_eq!(deg, [-10.0, 0.0, 10.0]);
}

#[test]
fn elements_walls_markers_and_joints() {
    let loaded = load(
        r#"<element class="vertical_plane"><x0>0</x0><y0>0</y0><x1>5</x1><y1>0</y1>
             <door position="0.3" width="0.9"/><window><position>0.7</position><z_min>1</z_min><z_max>2</z_max><name>w1</name></window></element>
           <element class="elevation_map"><elevation_data_matrix>[0 1; 2 3]</elevation_data_matrix>
             <elevation_data_matrix_scale>2</elevation_data_matrix_scale><resolution>6</resolution></element>
           <element class="property_region"><property_name>gps_no_coverage</property_name><value_bool>true</value_bool></element>
           <walls><shape><pt>0 0</pt><pt>1 0</pt></shape><wallHeight>3</wallHeight></walls>
           <marker type="line_strip"><points>0 0 0
             1 1 1</points><color>#ff0000</color></marker>
           <block name="a"><init_pose>0 0 0</init_pose><shape><pt>0 0</pt><pt>1 0</pt><pt>0 1</pt></shape></block>
           <block name="b"><init_pose>2 0 0</init_pose><geometry type="cylinder" radius="0.2" length="1"/></block>
           <joint type="rope" body_a="a" body_b="b" anchor_a="0 0" anchor_b="0.1 0" max_length="3"/>"#,
    );
    let all = headlines(&loaded);
    assert!(all.iter().all(|h| !h.contains("unknown tag")), "{all:?}");
    let w = world(loaded);
    let WorldElement::VerticalPlane(v) = &w.elements[0].element else {
        panic!()
    };
    assert_eq!(v.openings.len(), 2);
    assert!(v.openings[0].is_door && !v.openings[1].is_door);
    assert_eq!((v.openings[1].position, v.openings[1].z_min), (0.7, 1.0));
    // `<name>` as a child is read (demo_walls): no "unknown tag" warning.
    assert_eq!(v.openings[1].name, "w1");
    let WorldElement::ElevationMap(e) = &w.elements[1].element else {
        panic!()
    };
    assert_eq!(e.source, ElevationSource::Matrix { scale: 2.0 });
    let g = e.grid.as_ref().unwrap();
    assert_eq!((g.nx, g.ny, g.corner_min), (2, 2, [-3.0, -3.0]));
    assert_eq!(g.heights, [0.0, 2.0, 4.0, 6.0], "matrix rows run along +X");
    let WorldElement::PropertyRegion(r) = &w.elements[2].element else {
        panic!()
    };
    assert_eq!(r.value, PropertyValue::Bool(true));
    assert_eq!(w.walls[0].height, 3.0);
    assert_eq!(w.markers[0].points, [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]);
    assert_eq!(w.joints[0].kind, JointKind::Distance);
    assert!(matches!(w.blocks[0].shape, BlockShape::Polygon(_)));
}

#[test]
fn initial_poses_stand_on_the_ground_unless_told_not_to() {
    let w = world(load(
        r#"<element class="elevation_map"><elevation_data_matrix>[0 1; 2 3]</elevation_data_matrix>
             <elevation_data_matrix_scale>2</elevation_data_matrix_scale><resolution>6</resolution></element>
           <element class="horizontal_plane"><x_min>20</x_min><x_max>30</x_max><z>0</z></element>
           <element class="horizontal_plane"><x_min>20</x_min><x_max>30</x_max><z>3</z></element>
           <actor name="on_slope"><init_pose>-1.5 -3 0</init_pose></actor>
           <actor name="too_high_above"><init_pose>0 0 0</init_pose></actor>
           <actor name="ground_floor"><init_pose>25 0 0</init_pose></actor>
           <actor name="upstairs"><init_pose3d>25 0 3.2 0 0 0</init_pose3d></actor>
           <actor name="floating"><init_pose3d>25 0 9 0 0 0</init_pose3d><skip_elevation_adjust/></actor>
           <actor name="nowhere"><init_pose3d>100 0 5 0 0 0</init_pose3d></actor>
           <block name="box_upstairs"><init_pose3d>25 0 3 0 0 0</init_pose3d><zmax>0.4</zmax><geometry type="box"/></block>"#,
    ));
    let z: Vec<(&str, f64)> = w
        .actors
        .iter()
        .map(|a| (a.name.as_str(), a.common.init_pose.z))
        .collect();
    // The slope rises 4 m over the 6 m cell along +X: 1 m at a quarter of it.
    assert!((z[0].1 - 1.0).abs() < 1e-12, "{z:?}");
    // 3 m of terrain is above the query point (z + 1.5 m): MVSim finds no ground, z = 0.
    assert_eq!(
        &z[1..],
        [
            ("too_high_above", 0.0),
            ("ground_floor", 0.0),
            ("upstairs", 3.0),
            ("floating", 9.0),
            ("nowhere", 0.0)
        ]
    );
    assert_eq!(w.blocks[0].common.init_pose.z, 3.0);
}

#[test]
fn elevation_images_are_rescaled_to_their_height_range() {
    let w = world(load_file(
        &shared().join("worlds/mvsim/mvsim_tutorial/demo_elevation_map.world.xml"),
    ));
    let WorldElement::ElevationMap(e) = &w.elements[0].element else {
        panic!()
    };
    let g = e.grid.as_ref().unwrap();
    assert_eq!((g.nx, g.ny, g.resolution), (100, 100, 0.5));
    assert_eq!(g.corner_min, [-24.75, -24.75]);
    let lo = g.heights.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = g.heights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(
        (lo, hi),
        (-1.0, 2.0),
        "darkest pixel at min_z, brightest at max_z"
    );
    // Rocks and trees stand on the terrain (their random z is only the query start).
    for b in &w.blocks {
        let p = b.common.init_pose;
        let ground = g.height_at(p.x, p.y).unwrap_or(0.0);
        assert!(
            p.z == ground || p.z == 0.0,
            "{} at {p:?}, terrain {ground}",
            b.name
        );
    }
    assert!(w.blocks.iter().any(|b| b.common.init_pose.z != 0.0));
}

#[test]
fn occupancy_grids_from_images_and_ros_map_yaml() {
    let scratch = temp_dir();
    let dir = scratch.path().to_path_buf();
    // 2 x 2: top row black, white; bottom row white, grey 200 (free, occupancy 0.22).
    std::fs::write(
        dir.join("map.pgm"),
        b"P5\n# a comment\n2 2\n255\n\x00\xff\xff\xc8",
    )
    .unwrap();
    std::fs::write(
        dir.join("map.yaml"),
        "image: map.pgm  # the picture\nresolution: 0.05\norigin: [-10.0, -5.5, 0.0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("bad.yaml"),
        "image: nothing.pgm\nresolution: 0.05\norigin: [0, 0, 0]\n",
    )
    .unwrap();
    let w = world(load_in(
        &dir,
        r#"<mvsim_world><element class="occupancy_grid"><file>map.yaml</file></element>
           <element class="occupancy_grid"><file>map.pgm</file><resolution>0.2</resolution><centerpixel_x>160</centerpixel_x></element></mvsim_world>"#,
    ));
    let WorldElement::OccupancyGrid(g) = &w.elements[0].element else {
        panic!()
    };
    let m = g.ros_map.as_ref().unwrap();
    assert_eq!(
        (m.resolution, m.origin, m.negate),
        (0.05, [-10.0, -5.5, 0.0], false)
    );
    assert!(m.image.ends_with("map.pgm"));
    // Cells from the bottom row up: only the top-left pixel is occupied.
    let cells = g.cells.as_ref().unwrap();
    assert_eq!(
        (cells.cols, cells.rows, cells.origin),
        (2, 2, [-10.0, -5.5])
    );
    assert_eq!(cells.occupied, vec![false, false, true, false]);
    let WorldElement::OccupancyGrid(g) = &w.elements[1].element else {
        panic!()
    };
    assert_eq!((g.resolution, g.center_pixel), (0.2, [Some(160.0), None]));
    let loaded = load_in(
        &dir,
        r#"<mvsim_world><element class="occupancy_grid"><file>bad.yaml</file></element></mvsim_world>"#,
    );
    assert_diag(&loaded, "main.world.xml:1:52: error: <file>: the map image");
}

/// Loads a world body with variables set from outside (`--var`).
fn load_with_vars(body: &str, vars: &[(&str, &str)]) -> passerby_mvsim::Loaded {
    let text = format!("<mvsim_world version=\"1.0\">\n{body}\n</mvsim_world>\n");
    let mut opts = options(&[]);
    opts.variables = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    passerby_mvsim::load_world_str(std::path::Path::new("/virtual/w.xml"), text, &opts)
}

#[test]
fn variables_set_from_outside_win_over_the_worlds_own_and_fill_defaults() {
    let body = format!(
        r#"<variable name="COUNT" value="2"/>
           <for var="i" from="1" to="${{COUNT}}">
             <block name="b${{i}}"><init_pose>${{SPACING|1.0}} 0 0</init_pose>{BOX}</block>
           </for>"#
    );
    // As written: two blocks at x = 1.
    let w = world(load_with_vars(&body, &[]));
    assert_eq!(block_names(&w), ["b1", "b2"]);
    // From outside: four, at x = 2.5 (a default filled, a <variable> overridden).
    let w = world(load_with_vars(&body, &[("COUNT", "4"), ("SPACING", "2.5")]));
    assert_eq!(block_names(&w), ["b1", "b2", "b3", "b4"]);
    assert!(w.blocks.iter().all(|b| b.common.init_pose.x == 2.5));
    assert_eq!(w.variables["COUNT"], "4");
}

#[test]
fn a_variable_set_from_outside_that_the_world_never_names_is_warned_of() {
    let loaded = load_with_vars(
        r#"<variable name="COUNT" value="2"/>"#,
        &[("COUNT", "3"), ("CUONT", "3")],
    );
    let all = headlines(&loaded);
    assert!(
        all.iter()
            .any(|h| h.contains("`CUONT` (set with --var) is not used")),
        "{all:?}"
    );
    assert!(!all.iter().any(|h| h.contains("`COUNT`")), "{all:?}");
}
